//! The primitive modules a top instantiates (FIFO, register, scratchpad bank), each a
//! function of its parameters only: designs compiled together share one copy by name.

pub(super) fn fifo_module(name: &str, w: u32, d: u32) -> String {
    format!(
        "
// FIFO, {d} entries of {w} bits. Several dequeues and enqueues per cycle (counts deq_n,
// enq_n); entry 0 is the head; enqueued data becomes visible after the clock edge.
module {name} (
  input  logic clk,
  input  logic rst,
  output logic [7:0] cnt,
  output logic [{dw}:0] data,
  input  logic [7:0] deq_n,
  input  logic [7:0] enq_n,
  input  logic [{dw}:0] enq_data
);
  logic [7:0] keep;
  logic [{dw}:0] nxt;
  integer k;
  always_comb begin
    keep = cnt - deq_n;
    nxt = '0;
    for (k = 0; k < {d}; k = k + 1) begin
      if (k < 32'(keep)) nxt[k*{w} +: {w}] = data[(k + 32'(deq_n))*{w} +: {w}];
      else if (k - 32'(keep) < 32'(enq_n)) nxt[k*{w} +: {w}] = enq_data[(k - 32'(keep))*{w} +: {w}];
    end
  end
  always_ff @(posedge clk) begin
    if (rst) begin
      cnt <= 8'd0;
      data <= '0;
    end else begin
      cnt <= keep + enq_n;
      data <= nxt;
    end
  end
endmodule
",
        dw = d * w - 1
    )
}

pub(super) fn reg_module(name: &str, w: u32) -> String {
    format!(
        "
// Register of {w} bits: reads see the value at the start of the cycle.
module {name} #(parameter logic [{m}:0] INIT = '0) (
  input  logic clk,
  input  logic rst,
  input  logic wen,
  input  logic [{m}:0] wdata,
  output logic [{m}:0] q
);
  always_ff @(posedge clk) begin
    if (rst) q <= INIT;
    else if (wen) q <= wdata;
  end
endmodule
",
        m = w - 1
    )
}

pub(super) fn bank_module(name: &str, w: u32, d: u32, aw: u32, p: u32, r: u32) -> String {
    format!(
        "
// Scratchpad bank: {d} words of {w} bits, {p} write port(s) applied in port order (later
// wins), {r} combinational read port(s); indices at or beyond the depth read 0 and are
// not written. Reset loads INIT.
module {name} #(parameter logic [{iw}:0] INIT = '0) (
  input  logic clk,
  input  logic rst,
  input  logic [{pm}:0] we,
  input  logic [{pa}:0] waddr,
  input  logic [{pw}:0] wdata,
  input  logic [{ra}:0] raddr,
  output logic [{rw}:0] rdata
);
  logic [{wm}:0] mem [0:{dm}];
  integer i, j;
  always_ff @(posedge clk) begin
    if (rst) begin
      for (i = 0; i < {d}; i = i + 1) mem[i] <= INIT[i*{w} +: {w}];
    end else begin
      for (j = 0; j < {p}; j = j + 1)
        if (we[j] && {{1'b0, waddr[j*{aw} +: {aw}]}} < {aw1}'d{d}) mem[waddr[j*{aw} +: {aw}]] <= wdata[j*{w} +: {w}];
    end
  end
  genvar g;
  generate
    for (g = 0; g < {r}; g = g + 1) begin : rd
      assign rdata[g*{w} +: {w}] = ({{1'b0, raddr[g*{aw} +: {aw}]}} < {aw1}'d{d}) ? mem[raddr[g*{aw} +: {aw}]] : '0;
    end
  endgenerate
endmodule
",
        iw = d * w - 1,
        aw1 = aw + 1,
        pm = p - 1,
        pa = p * aw - 1,
        pw = p * w - 1,
        ra = r * aw - 1,
        rw = r * w - 1,
        wm = w - 1,
        dm = d - 1,
    )
}
