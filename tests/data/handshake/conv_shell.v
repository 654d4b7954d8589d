// The reference for the handshake of kiln's built-in `sitofp`/`uitofp`/`fptosi`: Dynamatic's
// templates (data/verilog/arith/{sitofp,uitofp,fptosi}.v, LATENCY = 5 there) with the core
// replaced by `~ins` (kiln's `float::shell`; the arithmetic is checked against Rust),
// written in Verilog by the kiln project around Dynamatic's own `delay_buffer`
// (support/delay_buffer.v) and `oehb` (handshake/oehb.v with handshake/dataless/oehb.v)
// read from the shared corpus: `LATENCY - 1` valid stages and the oehb, every stage enabled
// by the oehb's ready (also `ins_ready`), the data pipeline of `LATENCY` stages with the
// same enable and reset, `outs` its last stage.
module conv_shell #(parameter W = 4, parameter LATENCY = 5) (
  input clk,
  input rst,
  input [W-1:0] ins,
  input ins_valid,
  output ins_ready,
  output [W-1:0] outs,
  output outs_valid,
  input outs_ready
);
  wire buff_valid, oehb_ready;
  wire [W-1:0] oehb_dataOut;
  delay_buffer #(.SIZE(LATENCY - 1)) delay_buffer_inst (
    .clk(clk), .rst(rst), .valid_in(ins_valid), .ready_in(oehb_ready),
    .valid_out(buff_valid)
  );
  reg [W-1:0] pipe [0:LATENCY-1];
  integer i;
  initial for (i = 0; i < LATENCY; i = i + 1) pipe[i] = 0;
  always @(posedge clk) begin
    if (rst) begin
      for (i = 0; i < LATENCY; i = i + 1) pipe[i] <= 0;
    end else if (oehb_ready) begin
      pipe[0] <= ~ins;
      for (i = 1; i < LATENCY; i = i + 1) pipe[i] <= pipe[i - 1];
    end
  end
  oehb #(.DATA_TYPE(W)) oehb_inst (
    .clk(clk), .rst(rst),
    .ins_valid(buff_valid), .outs_ready(outs_ready),
    .outs_valid(outs_valid), .ins_ready(oehb_ready),
    .ins(pipe[LATENCY - 1]), .outs(oehb_dataOut)
  );
  assign outs = pipe[LATENCY - 1];
  assign ins_ready = oehb_ready;
endmodule
