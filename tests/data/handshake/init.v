// The references for kiln's built-in `init` and `spec_v2_repeating_init` units: Dynamatic's
// generators (experimental/tools/unit-generators/vhdl/generators/handshake/init.py and
// spec_v2/repeating_init.py) written in Verilog by the kiln project, one flag register set
// by reset (and at power-on, as kiln's latch starts). Port names are the generators'.
module init_unit #(parameter TOKEN = 0) (
  input clk,
  input rst,
  input ins,
  input ins_valid,
  output ins_ready,
  output outs,
  output outs_valid,
  input outs_ready
);
  reg init = 1'b1;
  assign outs = init ? TOKEN[0] : ins;
  assign outs_valid = init ? 1'b1 : ins_valid;
  assign ins_ready = init ? 1'b0 : outs_ready;
  always @(posedge clk)
    if (rst) init <= 1'b1;
    else if (outs_ready) init <= 1'b0;
endmodule

module repeating_init (
  input clk,
  input rst,
  input ins,
  input ins_valid,
  output ins_ready,
  output outs,
  output outs_valid,
  input outs_ready
);
  reg emit_init = 1'b1;
  assign outs = emit_init ? 1'b1 : ins;
  assign outs_valid = emit_init | ins_valid;
  assign ins_ready = ~emit_init & outs_ready;
  always @(posedge clk)
    if (rst) emit_init <= 1'b1;
    else if (outs_valid & outs_ready) emit_init <= ~outs;
endmodule
