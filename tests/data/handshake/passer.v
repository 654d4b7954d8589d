// The reference for kiln's built-in `passer` unit: the structure of Dynamatic's passer
// generator (experimental/tools/unit-generators/vhdl/generators/handshake/passer.py),
// written in Verilog by the kiln project around Dynamatic's own `join_type`
// (data/verilog/handshake/join.v, read from the shared corpus): `data` and `ctrl` joined,
// the join's consumer ready when the token is dropped (`ctrl` = 0) or `result` is ready,
// `result` valid for the tokens that pass. Port names are the generator's, as the unit's
// pins are named (`data[i]`, `data_valid`, ..., `result_ready`).
module passer_dataless (
  input clk,
  input rst,
  input data_valid,
  output data_ready,
  input ctrl,
  input ctrl_valid,
  output ctrl_ready,
  output result_valid,
  input result_ready
);
  wire branch_valid;
  wire branch_ready = ~ctrl | result_ready;
  wire [1:0] ins_ready;
  join_type #(.SIZE(2)) join_inputs (
    .ins_valid({ctrl_valid, data_valid}),
    .outs_ready(branch_ready),
    .ins_ready(ins_ready),
    .outs_valid(branch_valid)
  );
  assign data_ready = ins_ready[0];
  assign ctrl_ready = ins_ready[1];
  assign result_valid = branch_valid & ctrl;
endmodule

module passer #(parameter WIDTH = 4) (
  input clk,
  input rst,
  input [WIDTH-1:0] data,
  input data_valid,
  output data_ready,
  input ctrl,
  input ctrl_valid,
  output ctrl_ready,
  output [WIDTH-1:0] result,
  output result_valid,
  input result_ready
);
  passer_dataless inner (
    .clk(clk), .rst(rst),
    .data_valid(data_valid), .data_ready(data_ready),
    .ctrl(ctrl), .ctrl_valid(ctrl_valid), .ctrl_ready(ctrl_ready),
    .result_valid(result_valid), .result_ready(result_ready)
  );
  assign result = data;
endmodule
