// A join of SIZE control channels, with the ports of Dynamatic's `join_type`
// (written for kiln's tests; see ../../PROVENANCE.md).
module join_type #(
  parameter SIZE = 2
) (
  input  [SIZE - 1 : 0] ins_valid,
  input                 outs_ready,
  output [SIZE - 1 : 0] ins_ready,
  output                outs_valid
);
  assign outs_valid = &ins_valid;
  genvar i;
  generate
    for (i = 0; i < SIZE; i = i + 1) begin : lane
      // Ready for input i: the output is ready and every other input is valid.
      assign ins_ready[i] = outs_ready & &(ins_valid | (1 << i));
    end
  endgenerate
endmodule
