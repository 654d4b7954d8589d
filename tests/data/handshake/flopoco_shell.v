// The reference for the handshake of kiln's built-in float units: the structure of
// Dynamatic's FloPoCo wrappers (data/verilog/arith/flopoco/{addf,subf,mulf,cmpf}.vhd),
// written in Verilog by the kiln project around Dynamatic's own `join_type`
// (handshake/join.v), `delay_buffer` (support/delay_buffer.v) and `oehb_dataless`
// (handshake/dataless/oehb.v), all read from the shared corpus: the two operands joined,
// `LATENCY - 1` valid stages and the oehb's valid register, every stage enabled by the
// oehb's ready, and the core's data pipeline of `LATENCY` stages with the same enable (the
// FloPoCo core's `ce`). The core is `lhs ^ rhs` here (kiln's `float::shell`): the proof is
// about the handshake and the timing of the data, the arithmetic is checked against Rust.
// Port names are the units' (`lhs[i]`, `lhs_valid`, ..., `result_ready`).
// With OEHB = 0 it is the structure of Dynamatic's maximumf.v/minimumf.v instead: the join's
// ready and `LATENCY` valid stages all enabled by `result_ready`, no oehb (their core,
// `my_maxf`, is not in the corpus: its result is taken to be registered `LATENCY` times with
// the same enable).
module flopoco_shell #(parameter W = 4, parameter LATENCY = 3, parameter OEHB = 1) (
  input clk,
  input rst,
  input [W-1:0] lhs,
  input lhs_valid,
  output lhs_ready,
  input [W-1:0] rhs,
  input rhs_valid,
  output rhs_ready,
  output [W-1:0] result,
  output result_valid,
  input result_ready
);
  wire join_valid, buff_valid, oehb_ready;
  join_type #(.SIZE(2)) join_inputs (
    .ins_valid({rhs_valid, lhs_valid}),
    .outs_ready(oehb_ready),
    .ins_ready({rhs_ready, lhs_ready}),
    .outs_valid(join_valid)
  );
  generate
    if (OEHB == 0) begin : minmax
      delay_buffer #(.SIZE(LATENCY)) buff (
        .clk(clk), .rst(rst), .valid_in(join_valid), .ready_in(result_ready),
        .valid_out(result_valid)
      );
      assign oehb_ready = result_ready;
    end else begin : flopoco
      if (LATENCY > 1) begin : delay
        delay_buffer #(.SIZE(LATENCY - 1)) buff (
          .clk(clk), .rst(rst), .valid_in(join_valid), .ready_in(oehb_ready),
          .valid_out(buff_valid)
        );
      end else begin : nodelay
        assign buff_valid = join_valid;
      end
      oehb_dataless oehb (
        .clk(clk), .rst(rst),
        .ins_valid(buff_valid), .ins_ready(oehb_ready),
        .outs_valid(result_valid), .outs_ready(result_ready)
      );
    end
  endgenerate
  reg [W-1:0] pipe [0:LATENCY-1];
  integer i;
  initial for (i = 0; i < LATENCY; i = i + 1) pipe[i] = 0;
  always @(posedge clk) begin
    if (oehb_ready) begin
      pipe[0] <= lhs ^ rhs;
      for (i = 1; i < LATENCY; i = i + 1) pipe[i] <= pipe[i - 1];
    end
  end
  assign result = pipe[LATENCY - 1];
endmodule
