// kiln: rules for `features`
module {
  cmt2.circuit {
    cmt2.interface @RoCC {
      cmt2.value @cmd() -> (!firrtl.uint<96>) {
        cmt2.return
      } {
        cmt2.return
      }
      cmt2.method @cmd_deq() -> (!firrtl.uint<96>) {
        cmt2.return
      } {
        cmt2.return
      }
      cmt2.method @resp_from_user(%rd: !firrtl.uint<5>, %data: !firrtl.uint<32>) -> () {
        cmt2.return
      } {
        cmt2.return
      }
    }
    cmt2.interface @BurstDMA {
      cmt2.method @cpu_to_isax(%cpu_addr: !firrtl.uint<32>, %isax_addr: !firrtl.uint<32>, %log2_bytes: !firrtl.uint<4>) -> () {
        cmt2.return
      } {
        cmt2.return
      }
      cmt2.method @isax_to_cpu(%cpu_addr: !firrtl.uint<32>, %isax_addr: !firrtl.uint<32>, %log2_bytes: !firrtl.uint<4>) -> () {
        cmt2.return
      } {
        cmt2.return
      }
      cmt2.value @poll_for_idle() -> (!firrtl.uint<1>) {
        cmt2.return
      } {
        cmt2.return
      }
    }
    cmt2.interface @MemPort {
      cmt2.method @load_req(%addr: !firrtl.uint<32>) -> () {
        cmt2.return
      } {
        cmt2.return
      }
      cmt2.method @store_req(%addr: !firrtl.uint<32>, %data: !firrtl.uint<32>) -> () {
        cmt2.return
      } {
        cmt2.return
      }
      cmt2.method @load_resp() -> (!firrtl.uint<32>) {
        cmt2.return
      } {
        cmt2.return
      }
    }
    cmt2.module.extern.firrtl @Reg_w1_i0 : @Reg_w1_i0(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
      cmt2.bind.bare %clk, @clock : !firrtl.clock
      cmt2.bind.bare %rst, @reset : !firrtl.uint<1>
      cmt2.bind.value @read : () -> !firrtl.uint<1> [ready = "read_ready", arguments = [], results = ["read_data"]]
      cmt2.bind.method @write : (!firrtl.uint<1>) -> () [enable = "write_enable", ready = "write_ready", arguments = ["write_data"], results = []]
    } {conflict = [[@write, @write]], sequenceBefore = [[@read, @write]]}
    cmt2.module.extern.firrtl @Reg_w32_i0 : @Reg_w32_i0(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
      cmt2.bind.bare %clk, @clock : !firrtl.clock
      cmt2.bind.bare %rst, @reset : !firrtl.uint<1>
      cmt2.bind.value @read : () -> !firrtl.uint<32> [ready = "read_ready", arguments = [], results = ["read_data"]]
      cmt2.bind.method @write : (!firrtl.uint<32>) -> () [enable = "write_enable", ready = "write_ready", arguments = ["write_data"], results = []]
    } {conflict = [[@write, @write]], sequenceBefore = [[@read, @write]]}
    cmt2.module.extern.firrtl @Reg_w32_i100 : @Reg_w32_i100(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
      cmt2.bind.bare %clk, @clock : !firrtl.clock
      cmt2.bind.bare %rst, @reset : !firrtl.uint<1>
      cmt2.bind.value @read : () -> !firrtl.uint<32> [ready = "read_ready", arguments = [], results = ["read_data"]]
      cmt2.bind.method @write : (!firrtl.uint<32>) -> () [enable = "write_enable", ready = "write_ready", arguments = ["write_data"], results = []]
    } {conflict = [[@write, @write]], sequenceBefore = [[@read, @write]]}
    cmt2.module.extern.firrtl @Reg_w5_i0 : @Reg_w5_i0(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
      cmt2.bind.bare %clk, @clock : !firrtl.clock
      cmt2.bind.bare %rst, @reset : !firrtl.uint<1>
      cmt2.bind.value @read : () -> !firrtl.uint<5> [ready = "read_ready", arguments = [], results = ["read_data"]]
      cmt2.bind.method @write : (!firrtl.uint<5>) -> () [enable = "write_enable", ready = "write_ready", arguments = ["write_data"], results = []]
    } {conflict = [[@write, @write]], sequenceBefore = [[@read, @write]]}
    cmt2.module.extern.firrtl @Wire_w1 : @Wire_w1 {
      cmt2.bind.method @write : (!firrtl.uint<1>) -> () [enable = "write_enable", ready = "write_ready", arguments = ["write_data"], results = []]
      cmt2.bind.value @read : () -> !firrtl.uint<1> [ready = "read_ready", arguments = [], results = ["read_data"]]
    } {conflict = [[@write, @write]], sequenceBefore = [[@write, @read]]}
    cmt2.module.extern.firrtl @Wire_w32 : @Wire_w32 {
      cmt2.bind.method @write : (!firrtl.uint<32>) -> () [enable = "write_enable", ready = "write_ready", arguments = ["write_data"], results = []]
      cmt2.bind.value @read : () -> !firrtl.uint<32> [ready = "read_ready", arguments = [], results = ["read_data"]]
    } {conflict = [[@write, @write]], sequenceBefore = [[@write, @read]]}
    cmt2.module.extern.firrtl @Wire_w5 : @Wire_w5 {
      cmt2.bind.method @write : (!firrtl.uint<5>) -> () [enable = "write_enable", ready = "write_ready", arguments = ["write_data"], results = []]
      cmt2.bind.value @read : () -> !firrtl.uint<5> [ready = "read_ready", arguments = [], results = ["read_data"]]
    } {conflict = [[@write, @write]], sequenceBefore = [[@write, @read]]}
    cmt2.module @FIFO1_w1(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
      cmt2.instance @count = @Reg_w1_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @data_0 = @Reg_w1_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @deqed = @Wire_w1
      cmt2.instance @enqed = @Wire_w1
      cmt2.instance @enq_data = @Wire_w1
      cmt2.value @full() -> (!firrtl.uint<1>) {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        %0 = cmt2.call @count @read() : () -> !firrtl.uint<1>
        %1 = firrtl.constant 1 : !firrtl.uint<1>
        %2 = firrtl.eq %0, %1 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        cmt2.return %2 : !firrtl.uint<1>
      }
      cmt2.method @deq() -> (!firrtl.uint<1>) {
        %0 = cmt2.call @count @read() : () -> !firrtl.uint<1>
        %1 = firrtl.constant 0 : !firrtl.uint<1>
        %2 = firrtl.neq %0, %1 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        cmt2.return %2 : !firrtl.uint<1>
      } {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @deqed @write(%0) : (!firrtl.uint<1>) -> ()
        %1 = cmt2.call @data_0 @read() : () -> !firrtl.uint<1>
        cmt2.return %1 : !firrtl.uint<1>
      }
      cmt2.method @enq(%data: !firrtl.uint<1>) -> () {
        %0 = cmt2.call @count @read() : () -> !firrtl.uint<1>
        %1 = cmt2.call @deqed @read() : () -> !firrtl.uint<1>
        %2 = firrtl.pad %1, 1 : (!firrtl.uint<1>) -> !firrtl.uint<1>
        %3 = firrtl.sub %0, %2 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<2>
        %4 = firrtl.bits %3 0 to 0 : (!firrtl.uint<2>) -> !firrtl.uint<1>
        %5 = firrtl.constant 1 : !firrtl.uint<1>
        %6 = firrtl.lt %4, %5 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        cmt2.return %6 : !firrtl.uint<1>
      } {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @enqed @write(%0) : (!firrtl.uint<1>) -> ()
        cmt2.call @enq_data @write(%data) : (!firrtl.uint<1>) -> ()
        cmt2.return
      }
      cmt2.rule @update() -> () {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        %0 = cmt2.call @count @read() : () -> !firrtl.uint<1>
        %1 = cmt2.call @deqed @read() : () -> !firrtl.uint<1>
        %2 = cmt2.call @enqed @read() : () -> !firrtl.uint<1>
        %3 = cmt2.call @enq_data @read() : () -> !firrtl.uint<1>
        %4 = firrtl.pad %1, 1 : (!firrtl.uint<1>) -> !firrtl.uint<1>
        %5 = firrtl.pad %2, 1 : (!firrtl.uint<1>) -> !firrtl.uint<1>
        %6 = firrtl.sub %0, %4 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<2>
        %7 = firrtl.bits %6 0 to 0 : (!firrtl.uint<2>) -> !firrtl.uint<1>
        %8 = cmt2.call @data_0 @read() : () -> !firrtl.uint<1>
        %9 = firrtl.constant 0 : !firrtl.uint<1>
        %10 = firrtl.mux(%1, %9, %8) : (!firrtl.uint<1>, !firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        %11 = firrtl.constant 0 : !firrtl.uint<1>
        %12 = firrtl.eq %7, %11 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        %13 = firrtl.and %2, %12 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        %14 = firrtl.mux(%13, %3, %10) : (!firrtl.uint<1>, !firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        cmt2.call @data_0 @write(%14) : (!firrtl.uint<1>) -> ()
        %15 = firrtl.add %7, %5 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<2>
        %16 = firrtl.bits %15 0 to 0 : (!firrtl.uint<2>) -> !firrtl.uint<1>
        cmt2.call @count @write(%16) : (!firrtl.uint<1>) -> ()
        cmt2.return
      }
    } {precedence = [[@full, @deq], [@deq, @enq], [@enq, @update], [@full, @update]]}
    cmt2.module @FIFO1_w32(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
      cmt2.instance @count = @Reg_w1_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @data_0 = @Reg_w32_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @deqed = @Wire_w1
      cmt2.instance @enqed = @Wire_w1
      cmt2.instance @enq_data = @Wire_w32
      cmt2.value @full() -> (!firrtl.uint<1>) {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        %0 = cmt2.call @count @read() : () -> !firrtl.uint<1>
        %1 = firrtl.constant 1 : !firrtl.uint<1>
        %2 = firrtl.eq %0, %1 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        cmt2.return %2 : !firrtl.uint<1>
      }
      cmt2.method @deq() -> (!firrtl.uint<32>) {
        %0 = cmt2.call @count @read() : () -> !firrtl.uint<1>
        %1 = firrtl.constant 0 : !firrtl.uint<1>
        %2 = firrtl.neq %0, %1 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        cmt2.return %2 : !firrtl.uint<1>
      } {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @deqed @write(%0) : (!firrtl.uint<1>) -> ()
        %1 = cmt2.call @data_0 @read() : () -> !firrtl.uint<32>
        cmt2.return %1 : !firrtl.uint<32>
      }
      cmt2.method @enq(%data: !firrtl.uint<32>) -> () {
        %0 = cmt2.call @count @read() : () -> !firrtl.uint<1>
        %1 = cmt2.call @deqed @read() : () -> !firrtl.uint<1>
        %2 = firrtl.pad %1, 1 : (!firrtl.uint<1>) -> !firrtl.uint<1>
        %3 = firrtl.sub %0, %2 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<2>
        %4 = firrtl.bits %3 0 to 0 : (!firrtl.uint<2>) -> !firrtl.uint<1>
        %5 = firrtl.constant 1 : !firrtl.uint<1>
        %6 = firrtl.lt %4, %5 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        cmt2.return %6 : !firrtl.uint<1>
      } {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @enqed @write(%0) : (!firrtl.uint<1>) -> ()
        cmt2.call @enq_data @write(%data) : (!firrtl.uint<32>) -> ()
        cmt2.return
      }
      cmt2.rule @update() -> () {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        %0 = cmt2.call @count @read() : () -> !firrtl.uint<1>
        %1 = cmt2.call @deqed @read() : () -> !firrtl.uint<1>
        %2 = cmt2.call @enqed @read() : () -> !firrtl.uint<1>
        %3 = cmt2.call @enq_data @read() : () -> !firrtl.uint<32>
        %4 = firrtl.pad %1, 1 : (!firrtl.uint<1>) -> !firrtl.uint<1>
        %5 = firrtl.pad %2, 1 : (!firrtl.uint<1>) -> !firrtl.uint<1>
        %6 = firrtl.sub %0, %4 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<2>
        %7 = firrtl.bits %6 0 to 0 : (!firrtl.uint<2>) -> !firrtl.uint<1>
        %8 = cmt2.call @data_0 @read() : () -> !firrtl.uint<32>
        %9 = firrtl.constant 0 : !firrtl.uint<32>
        %10 = firrtl.mux(%1, %9, %8) : (!firrtl.uint<1>, !firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<32>
        %11 = firrtl.constant 0 : !firrtl.uint<1>
        %12 = firrtl.eq %7, %11 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        %13 = firrtl.and %2, %12 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        %14 = firrtl.mux(%13, %3, %10) : (!firrtl.uint<1>, !firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<32>
        cmt2.call @data_0 @write(%14) : (!firrtl.uint<32>) -> ()
        %15 = firrtl.add %7, %5 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<2>
        %16 = firrtl.bits %15 0 to 0 : (!firrtl.uint<2>) -> !firrtl.uint<1>
        cmt2.call @count @write(%16) : (!firrtl.uint<1>) -> ()
        cmt2.return
      }
    } {precedence = [[@full, @deq], [@deq, @enq], [@enq, @update], [@full, @update]]}
    cmt2.module @FIFO1_w5(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
      cmt2.instance @count = @Reg_w1_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @data_0 = @Reg_w5_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @deqed = @Wire_w1
      cmt2.instance @enqed = @Wire_w1
      cmt2.instance @enq_data = @Wire_w5
      cmt2.value @full() -> (!firrtl.uint<1>) {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        %0 = cmt2.call @count @read() : () -> !firrtl.uint<1>
        %1 = firrtl.constant 1 : !firrtl.uint<1>
        %2 = firrtl.eq %0, %1 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        cmt2.return %2 : !firrtl.uint<1>
      }
      cmt2.method @deq() -> (!firrtl.uint<5>) {
        %0 = cmt2.call @count @read() : () -> !firrtl.uint<1>
        %1 = firrtl.constant 0 : !firrtl.uint<1>
        %2 = firrtl.neq %0, %1 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        cmt2.return %2 : !firrtl.uint<1>
      } {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @deqed @write(%0) : (!firrtl.uint<1>) -> ()
        %1 = cmt2.call @data_0 @read() : () -> !firrtl.uint<5>
        cmt2.return %1 : !firrtl.uint<5>
      }
      cmt2.method @enq(%data: !firrtl.uint<5>) -> () {
        %0 = cmt2.call @count @read() : () -> !firrtl.uint<1>
        %1 = cmt2.call @deqed @read() : () -> !firrtl.uint<1>
        %2 = firrtl.pad %1, 1 : (!firrtl.uint<1>) -> !firrtl.uint<1>
        %3 = firrtl.sub %0, %2 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<2>
        %4 = firrtl.bits %3 0 to 0 : (!firrtl.uint<2>) -> !firrtl.uint<1>
        %5 = firrtl.constant 1 : !firrtl.uint<1>
        %6 = firrtl.lt %4, %5 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        cmt2.return %6 : !firrtl.uint<1>
      } {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @enqed @write(%0) : (!firrtl.uint<1>) -> ()
        cmt2.call @enq_data @write(%data) : (!firrtl.uint<5>) -> ()
        cmt2.return
      }
      cmt2.rule @update() -> () {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        %0 = cmt2.call @count @read() : () -> !firrtl.uint<1>
        %1 = cmt2.call @deqed @read() : () -> !firrtl.uint<1>
        %2 = cmt2.call @enqed @read() : () -> !firrtl.uint<1>
        %3 = cmt2.call @enq_data @read() : () -> !firrtl.uint<5>
        %4 = firrtl.pad %1, 1 : (!firrtl.uint<1>) -> !firrtl.uint<1>
        %5 = firrtl.pad %2, 1 : (!firrtl.uint<1>) -> !firrtl.uint<1>
        %6 = firrtl.sub %0, %4 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<2>
        %7 = firrtl.bits %6 0 to 0 : (!firrtl.uint<2>) -> !firrtl.uint<1>
        %8 = cmt2.call @data_0 @read() : () -> !firrtl.uint<5>
        %9 = firrtl.constant 0 : !firrtl.uint<5>
        %10 = firrtl.mux(%1, %9, %8) : (!firrtl.uint<1>, !firrtl.uint<5>, !firrtl.uint<5>) -> !firrtl.uint<5>
        %11 = firrtl.constant 0 : !firrtl.uint<1>
        %12 = firrtl.eq %7, %11 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        %13 = firrtl.and %2, %12 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        %14 = firrtl.mux(%13, %3, %10) : (!firrtl.uint<1>, !firrtl.uint<5>, !firrtl.uint<5>) -> !firrtl.uint<5>
        cmt2.call @data_0 @write(%14) : (!firrtl.uint<5>) -> ()
        %15 = firrtl.add %7, %5 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<2>
        %16 = firrtl.bits %15 0 to 0 : (!firrtl.uint<2>) -> !firrtl.uint<1>
        cmt2.call @count @write(%16) : (!firrtl.uint<1>) -> ()
        cmt2.return
      }
    } {precedence = [[@full, @deq], [@deq, @enq], [@enq, @update], [@full, @update]]}
    cmt2.module @main(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
      cmt2.interface.decl @rocc_adapter : @RoCC
      cmt2.interface.decl @dma : @BurstDMA {kiln.latency = 0 : i32, kiln.memory_map = []}
      cmt2.interface.decl @hellacache_adapter : @MemPort
      cmt2.instance @glbl_reg_g = @Reg_w32_i100(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b01_fifo_b0_b1_v0 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b01_fifo_b0_b2_v0 = @FIFO1_w5(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b01_fifo_b1_b2_v0 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b01_token_fifo_b0_b1 = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b01_token_fifo_b1_b2 = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b01_loop_1_loop_loop_to_body_fifo_0 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b01_loop_1_loop_loop_to_body_fifo_1 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b01_loop_1_loop_token_entry_to_body = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b01_loop_1_loop_token_body_to_next = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b01_loop_1_loop_dist_to_block0_fifo_v0 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b01_loop_1_loop_dist_to_block0_fifo_v1 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b01_loop_1_loop_yield_fifo_0 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b01_loop_1_loop_dist_token_fifo = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b01_loop_1_loop_cur_reg = @Reg_w32_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b01_loop_1_loop_ub_reg = @Reg_w32_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b01_loop_1_loop_step_reg = @Reg_w32_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_fifo_b0_b1_v0 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_fifo_b0_b1_v1 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_fifo_b0_b2_v0 = @FIFO1_w5(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_fifo_b1_b2_v0 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_token_fifo_b0_b1 = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_token_fifo_b1_b2 = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_to_body_fifo_0 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_to_body_fifo_1 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_to_body_fifo_2 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_token_entry_to_body = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_token_body_to_next = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_dist_to_block0_fifo_v0 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_dist_to_block0_fifo_v1 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_dist_to_block0_fifo_v2 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_yield_fifo_0 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_dist_token_fifo = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_0_loop_loop_to_body_fifo_0 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_0_loop_loop_to_body_fifo_1 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_0_loop_loop_to_body_fifo_2 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_0_loop_loop_to_body_fifo_3 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_0_loop_token_entry_to_body = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_0_loop_token_body_to_next = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_0_loop_dist_to_block0_fifo_v0 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_0_loop_dist_to_block0_fifo_v1 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_0_loop_dist_to_block1_fifo_v0 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_0_loop_fifo_b0_b1_v0 = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_0_loop_dist_to_block1_fifo_v1 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_0_loop_yield_fifo_0 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_0_loop_dist_token_fifo = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_0_loop_token_fifo_b0_b1 = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_0_loop_if_1_thenin0 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_0_loop_if_1_thenin1 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_0_loop_if_1_thentok = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_0_loop_if_1_thendone = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_0_loop_if_1_then_dist_to_block0_fifo_v0 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_0_loop_if_1_then_dist_to_block0_fifo_v1 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_0_loop_if_1_thenres0 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_0_loop_if_1_then_dist_token_fifo = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_0_loop_if_1_elsein0 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_0_loop_if_1_elsetok = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_0_loop_if_1_elsedone = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_0_loop_if_1_elseres0 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_cur_reg = @Reg_w32_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_ub_reg = @Reg_w32_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_step_reg = @Reg_w32_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_input_state_reg_0 = @Reg_w32_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_0_loop_cur_reg = @Reg_w32_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_0_loop_ub_reg = @Reg_w32_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_0_loop_step_reg = @Reg_w32_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_0_loop_input_state_reg_0 = @Reg_w32_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b02_loop_1_loop_loop_0_loop_input_state_reg_1 = @Reg_w32_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b03_fifo_b0_b1_v0 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b03_fifo_b0_b1_v1 = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b03_fifo_b0_b2_v0 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b03_fifo_b0_b2_v1 = @FIFO1_w5(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b03_token_fifo_b0_b1 = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b03_token_fifo_b1_b2 = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b03_if_1_thenin0 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b03_if_1_thentok = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b03_if_1_thendone = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b03_if_1_then_dist_to_block0_fifo_v0 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b03_if_1_then_dist_token_fifo = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b03_block_2_fifo_s5_s6_v0 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b03_block_2_fifo_s5_s6_v1 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b03_block_2_fifo_s5_s6_v2 = @FIFO1_w5(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b03_block_2_token_fifo_s5 = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b03_if_1_then_block_0_fifo_s2_s3_v0 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b03_if_1_then_block_0_token_fifo_s2 = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b04_fifo_b0_b1_v0 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b04_fifo_b0_b1_v1 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b04_fifo_b0_b2_v0 = @FIFO1_w5(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b04_fifo_b1_b2_v0 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b04_token_fifo_b0_b1 = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b04_token_fifo_b1_b2 = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b04_loop_1_loop_loop_to_body_fifo_0 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b04_loop_1_loop_loop_to_body_fifo_1 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b04_loop_1_loop_token_entry_to_body = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b04_loop_1_loop_token_body_to_next = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b04_loop_1_loop_dist_to_block0_fifo_v0 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b04_loop_1_loop_yield_fifo_0 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b04_loop_1_loop_dist_token_fifo = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b04_loop_1_loop_cur_reg = @Reg_w32_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b04_loop_1_loop_ub_reg = @Reg_w32_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b04_loop_1_loop_step_reg = @Reg_w32_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.rule @inst0b01_block_0_slot_0_rule() -> () attributes {kiln.origin = "inst0b01_block_0"} {
        %v0 = cmt2.call @rocc_adapter @cmd() : () -> !firrtl.uint<96>
        %v1 = firrtl.bits %v0 70 to 64 : (!firrtl.uint<96>) -> !firrtl.uint<7>
        %v2 = firrtl.constant 11 : !firrtl.uint<7>
        %v3 = firrtl.eq %v1, %v2 : (!firrtl.uint<7>, !firrtl.uint<7>) -> !firrtl.uint<1>
        %v4 = firrtl.bits %v0 95 to 89 : (!firrtl.uint<96>) -> !firrtl.uint<7>
        %v5 = firrtl.constant 1 : !firrtl.uint<7>
        %v6 = firrtl.eq %v4, %v5 : (!firrtl.uint<7>, !firrtl.uint<7>) -> !firrtl.uint<1>
        %v7 = firrtl.and %v3, %v6 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        cmt2.return %v7 : !firrtl.uint<1>
      } {
        %v8 = cmt2.call @rocc_adapter @cmd_deq() : () -> !firrtl.uint<96>
        %v9 = firrtl.bits %v8 78 to 74 : (!firrtl.uint<96>) -> !firrtl.uint<5>
        cmt2.call @inst0b01_fifo_b0_b2_v0 @enq(%v9) : (!firrtl.uint<5>) -> ()
        %v10 = firrtl.bits %v8 63 to 32 : (!firrtl.uint<96>) -> !firrtl.uint<32>
        cmt2.call @inst0b01_fifo_b0_b1_v0 @enq(%v10) : (!firrtl.uint<32>) -> ()
        %v11 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @inst0b01_token_fifo_b0_b1 @enq(%v11) : (!firrtl.uint<1>) -> ()
        cmt2.return
      }
      cmt2.rule @inst0b01_loop_1_loop_entry_rule() -> () attributes {kiln.origin = "inst0b01_loop_1"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b01_token_fifo_b0_b1 @deq() : () -> !firrtl.uint<1>
        %v1 = cmt2.call @inst0b01_fifo_b0_b1_v0 @deq() : () -> !firrtl.uint<32>
        %v2 = firrtl.constant 0 : !firrtl.uint<32>
        %v3 = firrtl.constant 1 : !firrtl.uint<32>
        cmt2.call @inst0b01_loop_1_loop_cur_reg @write(%v2) : (!firrtl.uint<32>) -> ()
        cmt2.call @inst0b01_loop_1_loop_ub_reg @write(%v1) : (!firrtl.uint<32>) -> ()
        cmt2.call @inst0b01_loop_1_loop_step_reg @write(%v3) : (!firrtl.uint<32>) -> ()
        %v4 = firrtl.constant 0 : !firrtl.uint<32>
        %v5_1 = firrtl.asSInt %v3 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v5_2 = firrtl.asSInt %v4 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v5 = firrtl.lt %v5_1, %v5_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v6_1 = firrtl.asSInt %v2 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v6_2 = firrtl.asSInt %v1 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v6 = firrtl.geq %v6_1, %v6_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v7_1 = firrtl.asSInt %v2 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v7_2 = firrtl.asSInt %v1 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v7 = firrtl.leq %v7_1, %v7_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v8 = firrtl.mux(%v5, %v6, %v7) : (!firrtl.uint<1>, !firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        cmt2.if %v8 : !firrtl.uint<1> {
          cmt2.call @inst0b01_loop_1_loop_loop_to_body_fifo_0 @enq(%v2) : (!firrtl.uint<32>) -> ()
          cmt2.call @inst0b01_loop_1_loop_loop_to_body_fifo_1 @enq(%v2) : (!firrtl.uint<32>) -> ()
          %v9 = firrtl.constant 1 : !firrtl.uint<1>
          cmt2.call @inst0b01_loop_1_loop_token_entry_to_body @enq(%v9) : (!firrtl.uint<1>) -> ()
          cmt2.yield
        } else {
          cmt2.call @inst0b01_fifo_b1_b2_v0 @enq(%v2) : (!firrtl.uint<32>) -> ()
          %v10 = firrtl.constant 1 : !firrtl.uint<1>
          cmt2.call @inst0b01_token_fifo_b1_b2 @enq(%v10) : (!firrtl.uint<1>) -> ()
          cmt2.yield
        }
        cmt2.return
      }
      cmt2.rule @inst0b01_loop_1_loop_next_rule() -> () attributes {kiln.origin = "inst0b01_loop_1"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b01_loop_1_loop_token_body_to_next @deq() : () -> !firrtl.uint<1>
        %v1 = cmt2.call @inst0b01_loop_1_loop_yield_fifo_0 @deq() : () -> !firrtl.uint<32>
        %v2 = cmt2.call @inst0b01_loop_1_loop_cur_reg @read() : () -> !firrtl.uint<32>
        %v3 = cmt2.call @inst0b01_loop_1_loop_ub_reg @read() : () -> !firrtl.uint<32>
        %v4 = cmt2.call @inst0b01_loop_1_loop_step_reg @read() : () -> !firrtl.uint<32>
        %v5_1 = firrtl.add %v2, %v4 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<33>
        %v5 = firrtl.bits %v5_1 31 to 0 : (!firrtl.uint<33>) -> !firrtl.uint<32>
        %v6 = firrtl.constant 0 : !firrtl.uint<32>
        %v7_1 = firrtl.asSInt %v4 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v7_2 = firrtl.asSInt %v6 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v7 = firrtl.lt %v7_1, %v7_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v8_1 = firrtl.asSInt %v5 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v8_2 = firrtl.asSInt %v3 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v8 = firrtl.geq %v8_1, %v8_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v9_1 = firrtl.asSInt %v5 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v9_2 = firrtl.asSInt %v3 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v9 = firrtl.leq %v9_1, %v9_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v10 = firrtl.mux(%v7, %v8, %v9) : (!firrtl.uint<1>, !firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        cmt2.if %v10 : !firrtl.uint<1> {
          cmt2.call @inst0b01_loop_1_loop_cur_reg @write(%v5) : (!firrtl.uint<32>) -> ()
          cmt2.yield
        }
        cmt2.if %v10 : !firrtl.uint<1> {
          cmt2.call @inst0b01_loop_1_loop_loop_to_body_fifo_0 @enq(%v5) : (!firrtl.uint<32>) -> ()
          cmt2.call @inst0b01_loop_1_loop_loop_to_body_fifo_1 @enq(%v1) : (!firrtl.uint<32>) -> ()
          %v11 = firrtl.constant 1 : !firrtl.uint<1>
          cmt2.call @inst0b01_loop_1_loop_token_entry_to_body @enq(%v11) : (!firrtl.uint<1>) -> ()
          cmt2.yield
        } else {
          cmt2.call @inst0b01_fifo_b1_b2_v0 @enq(%v1) : (!firrtl.uint<32>) -> ()
          %v12 = firrtl.constant 1 : !firrtl.uint<1>
          cmt2.call @inst0b01_token_fifo_b1_b2 @enq(%v12) : (!firrtl.uint<1>) -> ()
          cmt2.yield
        }
        cmt2.return
      }
      cmt2.rule @inst0b01_loop_1_loop_input_distribution() -> () attributes {kiln.origin = "inst0b01_loop_1"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b01_loop_1_loop_token_entry_to_body @deq() : () -> !firrtl.uint<1>
        %v1 = cmt2.call @inst0b01_loop_1_loop_loop_to_body_fifo_0 @deq() : () -> !firrtl.uint<32>
        %v2 = cmt2.call @inst0b01_loop_1_loop_loop_to_body_fifo_1 @deq() : () -> !firrtl.uint<32>
        cmt2.call @inst0b01_loop_1_loop_dist_to_block0_fifo_v1 @enq(%v1) : (!firrtl.uint<32>) -> ()
        cmt2.call @inst0b01_loop_1_loop_dist_to_block0_fifo_v0 @enq(%v2) : (!firrtl.uint<32>) -> ()
        %v3 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @inst0b01_loop_1_loop_dist_token_fifo @enq(%v3) : (!firrtl.uint<1>) -> ()
        cmt2.return
      }
      cmt2.rule @inst0b01_block_2_slot_4_rule() -> () attributes {kiln.origin = "inst0b01_block_2"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b01_token_fifo_b1_b2 @deq() : () -> !firrtl.uint<1>
        %v1 = cmt2.call @inst0b01_fifo_b0_b2_v0 @deq() : () -> !firrtl.uint<5>
        %v2 = cmt2.call @inst0b01_fifo_b1_b2_v0 @deq() : () -> !firrtl.uint<32>
        cmt2.call @rocc_adapter @resp_from_user(%v1, %v2) : (!firrtl.uint<5>, !firrtl.uint<32>) -> ()
        cmt2.return
      }
      cmt2.rule @inst0b01_loop_1_loop_block_0_slot_2_rule() -> () attributes {kiln.origin = "inst0b01_loop_1_loop_block_0"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b01_loop_1_loop_dist_token_fifo @deq() : () -> !firrtl.uint<1>
        %v1 = cmt2.call @inst0b01_loop_1_loop_dist_to_block0_fifo_v0 @deq() : () -> !firrtl.uint<32>
        %v2 = cmt2.call @inst0b01_loop_1_loop_dist_to_block0_fifo_v1 @deq() : () -> !firrtl.uint<32>
        %v3_1 = firrtl.add %v1, %v2 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<33>
        %v3 = firrtl.bits %v3_1 31 to 0 : (!firrtl.uint<33>) -> !firrtl.uint<32>
        cmt2.call @inst0b01_loop_1_loop_yield_fifo_0 @enq(%v3) : (!firrtl.uint<32>) -> ()
        %v4 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @inst0b01_loop_1_loop_token_body_to_next @enq(%v4) : (!firrtl.uint<1>) -> ()
        cmt2.return
      }
      cmt2.rule @inst0b02_block_0_slot_0_rule() -> () attributes {kiln.origin = "inst0b02_block_0"} {
        %v0 = cmt2.call @rocc_adapter @cmd() : () -> !firrtl.uint<96>
        %v1 = firrtl.bits %v0 70 to 64 : (!firrtl.uint<96>) -> !firrtl.uint<7>
        %v2 = firrtl.constant 11 : !firrtl.uint<7>
        %v3 = firrtl.eq %v1, %v2 : (!firrtl.uint<7>, !firrtl.uint<7>) -> !firrtl.uint<1>
        %v4 = firrtl.bits %v0 95 to 89 : (!firrtl.uint<96>) -> !firrtl.uint<7>
        %v5 = firrtl.constant 2 : !firrtl.uint<7>
        %v6 = firrtl.eq %v4, %v5 : (!firrtl.uint<7>, !firrtl.uint<7>) -> !firrtl.uint<1>
        %v7 = firrtl.and %v3, %v6 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        cmt2.return %v7 : !firrtl.uint<1>
      } {
        %v8 = cmt2.call @rocc_adapter @cmd_deq() : () -> !firrtl.uint<96>
        %v9 = firrtl.bits %v8 78 to 74 : (!firrtl.uint<96>) -> !firrtl.uint<5>
        cmt2.call @inst0b02_fifo_b0_b2_v0 @enq(%v9) : (!firrtl.uint<5>) -> ()
        %v10 = firrtl.bits %v8 63 to 32 : (!firrtl.uint<96>) -> !firrtl.uint<32>
        cmt2.call @inst0b02_fifo_b0_b1_v0 @enq(%v10) : (!firrtl.uint<32>) -> ()
        %v11 = firrtl.bits %v8 31 to 0 : (!firrtl.uint<96>) -> !firrtl.uint<32>
        cmt2.call @inst0b02_fifo_b0_b1_v1 @enq(%v11) : (!firrtl.uint<32>) -> ()
        %v12 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @inst0b02_token_fifo_b0_b1 @enq(%v12) : (!firrtl.uint<1>) -> ()
        cmt2.return
      }
      cmt2.rule @inst0b02_loop_1_loop_entry_rule() -> () attributes {kiln.origin = "inst0b02_loop_1"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b02_token_fifo_b0_b1 @deq() : () -> !firrtl.uint<1>
        %v1 = cmt2.call @inst0b02_fifo_b0_b1_v0 @deq() : () -> !firrtl.uint<32>
        %v2 = cmt2.call @inst0b02_fifo_b0_b1_v1 @deq() : () -> !firrtl.uint<32>
        %v3 = firrtl.constant 5 : !firrtl.uint<32>
        %v4 = firrtl.constant 1 : !firrtl.uint<32>
        %v5 = firrtl.constant 4294967295 : !firrtl.uint<32>
        cmt2.call @inst0b02_loop_1_loop_cur_reg @write(%v3) : (!firrtl.uint<32>) -> ()
        cmt2.call @inst0b02_loop_1_loop_ub_reg @write(%v4) : (!firrtl.uint<32>) -> ()
        cmt2.call @inst0b02_loop_1_loop_step_reg @write(%v5) : (!firrtl.uint<32>) -> ()
        cmt2.call @inst0b02_loop_1_loop_input_state_reg_0 @write(%v1) : (!firrtl.uint<32>) -> ()
        %v6 = firrtl.constant 0 : !firrtl.uint<32>
        %v7_1 = firrtl.asSInt %v5 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v7_2 = firrtl.asSInt %v6 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v7 = firrtl.lt %v7_1, %v7_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v8_1 = firrtl.asSInt %v3 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v8_2 = firrtl.asSInt %v4 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v8 = firrtl.geq %v8_1, %v8_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v9_1 = firrtl.asSInt %v3 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v9_2 = firrtl.asSInt %v4 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v9 = firrtl.leq %v9_1, %v9_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v10 = firrtl.mux(%v7, %v8, %v9) : (!firrtl.uint<1>, !firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        cmt2.if %v10 : !firrtl.uint<1> {
          cmt2.call @inst0b02_loop_1_loop_loop_to_body_fifo_0 @enq(%v3) : (!firrtl.uint<32>) -> ()
          cmt2.call @inst0b02_loop_1_loop_loop_to_body_fifo_1 @enq(%v2) : (!firrtl.uint<32>) -> ()
          cmt2.call @inst0b02_loop_1_loop_loop_to_body_fifo_2 @enq(%v1) : (!firrtl.uint<32>) -> ()
          %v11 = firrtl.constant 1 : !firrtl.uint<1>
          cmt2.call @inst0b02_loop_1_loop_token_entry_to_body @enq(%v11) : (!firrtl.uint<1>) -> ()
          cmt2.yield
        } else {
          cmt2.call @inst0b02_fifo_b1_b2_v0 @enq(%v2) : (!firrtl.uint<32>) -> ()
          %v12 = firrtl.constant 1 : !firrtl.uint<1>
          cmt2.call @inst0b02_token_fifo_b1_b2 @enq(%v12) : (!firrtl.uint<1>) -> ()
          cmt2.yield
        }
        cmt2.return
      }
      cmt2.rule @inst0b02_loop_1_loop_next_rule() -> () attributes {kiln.origin = "inst0b02_loop_1"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b02_loop_1_loop_token_body_to_next @deq() : () -> !firrtl.uint<1>
        %v1 = cmt2.call @inst0b02_loop_1_loop_yield_fifo_0 @deq() : () -> !firrtl.uint<32>
        %v2 = cmt2.call @inst0b02_loop_1_loop_cur_reg @read() : () -> !firrtl.uint<32>
        %v3 = cmt2.call @inst0b02_loop_1_loop_ub_reg @read() : () -> !firrtl.uint<32>
        %v4 = cmt2.call @inst0b02_loop_1_loop_step_reg @read() : () -> !firrtl.uint<32>
        %v5_1 = firrtl.add %v2, %v4 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<33>
        %v5 = firrtl.bits %v5_1 31 to 0 : (!firrtl.uint<33>) -> !firrtl.uint<32>
        %v6 = firrtl.constant 0 : !firrtl.uint<32>
        %v7_1 = firrtl.asSInt %v4 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v7_2 = firrtl.asSInt %v6 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v7 = firrtl.lt %v7_1, %v7_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v8_1 = firrtl.asSInt %v5 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v8_2 = firrtl.asSInt %v3 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v8 = firrtl.geq %v8_1, %v8_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v9_1 = firrtl.asSInt %v5 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v9_2 = firrtl.asSInt %v3 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v9 = firrtl.leq %v9_1, %v9_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v10 = firrtl.mux(%v7, %v8, %v9) : (!firrtl.uint<1>, !firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        %v11 = cmt2.call @inst0b02_loop_1_loop_input_state_reg_0 @read() : () -> !firrtl.uint<32>
        cmt2.if %v10 : !firrtl.uint<1> {
          cmt2.call @inst0b02_loop_1_loop_cur_reg @write(%v5) : (!firrtl.uint<32>) -> ()
          cmt2.yield
        }
        cmt2.if %v10 : !firrtl.uint<1> {
          cmt2.call @inst0b02_loop_1_loop_loop_to_body_fifo_0 @enq(%v5) : (!firrtl.uint<32>) -> ()
          cmt2.call @inst0b02_loop_1_loop_loop_to_body_fifo_1 @enq(%v1) : (!firrtl.uint<32>) -> ()
          cmt2.call @inst0b02_loop_1_loop_loop_to_body_fifo_2 @enq(%v11) : (!firrtl.uint<32>) -> ()
          %v12 = firrtl.constant 1 : !firrtl.uint<1>
          cmt2.call @inst0b02_loop_1_loop_token_entry_to_body @enq(%v12) : (!firrtl.uint<1>) -> ()
          cmt2.yield
        } else {
          cmt2.call @inst0b02_fifo_b1_b2_v0 @enq(%v1) : (!firrtl.uint<32>) -> ()
          %v13 = firrtl.constant 1 : !firrtl.uint<1>
          cmt2.call @inst0b02_token_fifo_b1_b2 @enq(%v13) : (!firrtl.uint<1>) -> ()
          cmt2.yield
        }
        cmt2.return
      }
      cmt2.rule @inst0b02_loop_1_loop_input_distribution() -> () attributes {kiln.origin = "inst0b02_loop_1"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b02_loop_1_loop_token_entry_to_body @deq() : () -> !firrtl.uint<1>
        %v1 = cmt2.call @inst0b02_loop_1_loop_loop_to_body_fifo_0 @deq() : () -> !firrtl.uint<32>
        %v2 = cmt2.call @inst0b02_loop_1_loop_loop_to_body_fifo_1 @deq() : () -> !firrtl.uint<32>
        %v3 = cmt2.call @inst0b02_loop_1_loop_loop_to_body_fifo_2 @deq() : () -> !firrtl.uint<32>
        cmt2.call @inst0b02_loop_1_loop_dist_to_block0_fifo_v2 @enq(%v1) : (!firrtl.uint<32>) -> ()
        cmt2.call @inst0b02_loop_1_loop_dist_to_block0_fifo_v1 @enq(%v2) : (!firrtl.uint<32>) -> ()
        cmt2.call @inst0b02_loop_1_loop_dist_to_block0_fifo_v0 @enq(%v3) : (!firrtl.uint<32>) -> ()
        %v4 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @inst0b02_loop_1_loop_dist_token_fifo @enq(%v4) : (!firrtl.uint<1>) -> ()
        cmt2.return
      }
      cmt2.rule @inst0b02_block_2_slot_10_rule() -> () attributes {kiln.origin = "inst0b02_block_2"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b02_token_fifo_b1_b2 @deq() : () -> !firrtl.uint<1>
        %v1 = cmt2.call @inst0b02_fifo_b0_b2_v0 @deq() : () -> !firrtl.uint<5>
        %v2 = cmt2.call @inst0b02_fifo_b1_b2_v0 @deq() : () -> !firrtl.uint<32>
        cmt2.call @rocc_adapter @resp_from_user(%v1, %v2) : (!firrtl.uint<5>, !firrtl.uint<32>) -> ()
        cmt2.return
      }
      cmt2.rule @inst0b02_loop_1_loop_loop_0_loop_entry_rule() -> () attributes {kiln.origin = "inst0b02_loop_1_loop_loop_0"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b02_loop_1_loop_dist_token_fifo @deq() : () -> !firrtl.uint<1>
        %v1 = cmt2.call @inst0b02_loop_1_loop_dist_to_block0_fifo_v0 @deq() : () -> !firrtl.uint<32>
        %v2 = cmt2.call @inst0b02_loop_1_loop_dist_to_block0_fifo_v1 @deq() : () -> !firrtl.uint<32>
        %v3 = cmt2.call @inst0b02_loop_1_loop_dist_to_block0_fifo_v2 @deq() : () -> !firrtl.uint<32>
        %v4 = firrtl.constant 0 : !firrtl.uint<32>
        %v5 = firrtl.constant 1 : !firrtl.uint<32>
        cmt2.call @inst0b02_loop_1_loop_loop_0_loop_cur_reg @write(%v4) : (!firrtl.uint<32>) -> ()
        cmt2.call @inst0b02_loop_1_loop_loop_0_loop_ub_reg @write(%v3) : (!firrtl.uint<32>) -> ()
        cmt2.call @inst0b02_loop_1_loop_loop_0_loop_step_reg @write(%v5) : (!firrtl.uint<32>) -> ()
        cmt2.call @inst0b02_loop_1_loop_loop_0_loop_input_state_reg_0 @write(%v1) : (!firrtl.uint<32>) -> ()
        cmt2.call @inst0b02_loop_1_loop_loop_0_loop_input_state_reg_1 @write(%v3) : (!firrtl.uint<32>) -> ()
        %v6 = firrtl.constant 0 : !firrtl.uint<32>
        %v7_1 = firrtl.asSInt %v5 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v7_2 = firrtl.asSInt %v6 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v7 = firrtl.lt %v7_1, %v7_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v8_1 = firrtl.asSInt %v4 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v8_2 = firrtl.asSInt %v3 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v8 = firrtl.geq %v8_1, %v8_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v9_1 = firrtl.asSInt %v4 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v9_2 = firrtl.asSInt %v3 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v9 = firrtl.leq %v9_1, %v9_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v10 = firrtl.mux(%v7, %v8, %v9) : (!firrtl.uint<1>, !firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        cmt2.if %v10 : !firrtl.uint<1> {
          cmt2.call @inst0b02_loop_1_loop_loop_0_loop_loop_to_body_fifo_0 @enq(%v4) : (!firrtl.uint<32>) -> ()
          cmt2.call @inst0b02_loop_1_loop_loop_0_loop_loop_to_body_fifo_1 @enq(%v2) : (!firrtl.uint<32>) -> ()
          cmt2.call @inst0b02_loop_1_loop_loop_0_loop_loop_to_body_fifo_2 @enq(%v1) : (!firrtl.uint<32>) -> ()
          cmt2.call @inst0b02_loop_1_loop_loop_0_loop_loop_to_body_fifo_3 @enq(%v3) : (!firrtl.uint<32>) -> ()
          %v11 = firrtl.constant 1 : !firrtl.uint<1>
          cmt2.call @inst0b02_loop_1_loop_loop_0_loop_token_entry_to_body @enq(%v11) : (!firrtl.uint<1>) -> ()
          cmt2.yield
        } else {
          cmt2.call @inst0b02_loop_1_loop_yield_fifo_0 @enq(%v2) : (!firrtl.uint<32>) -> ()
          %v12 = firrtl.constant 1 : !firrtl.uint<1>
          cmt2.call @inst0b02_loop_1_loop_token_body_to_next @enq(%v12) : (!firrtl.uint<1>) -> ()
          cmt2.yield
        }
        cmt2.return
      }
      cmt2.rule @inst0b02_loop_1_loop_loop_0_loop_next_rule() -> () attributes {kiln.origin = "inst0b02_loop_1_loop_loop_0"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b02_loop_1_loop_loop_0_loop_token_body_to_next @deq() : () -> !firrtl.uint<1>
        %v1 = cmt2.call @inst0b02_loop_1_loop_loop_0_loop_yield_fifo_0 @deq() : () -> !firrtl.uint<32>
        %v2 = cmt2.call @inst0b02_loop_1_loop_loop_0_loop_cur_reg @read() : () -> !firrtl.uint<32>
        %v3 = cmt2.call @inst0b02_loop_1_loop_loop_0_loop_ub_reg @read() : () -> !firrtl.uint<32>
        %v4 = cmt2.call @inst0b02_loop_1_loop_loop_0_loop_step_reg @read() : () -> !firrtl.uint<32>
        %v5_1 = firrtl.add %v2, %v4 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<33>
        %v5 = firrtl.bits %v5_1 31 to 0 : (!firrtl.uint<33>) -> !firrtl.uint<32>
        %v6 = firrtl.constant 0 : !firrtl.uint<32>
        %v7_1 = firrtl.asSInt %v4 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v7_2 = firrtl.asSInt %v6 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v7 = firrtl.lt %v7_1, %v7_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v8_1 = firrtl.asSInt %v5 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v8_2 = firrtl.asSInt %v3 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v8 = firrtl.geq %v8_1, %v8_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v9_1 = firrtl.asSInt %v5 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v9_2 = firrtl.asSInt %v3 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v9 = firrtl.leq %v9_1, %v9_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v10 = firrtl.mux(%v7, %v8, %v9) : (!firrtl.uint<1>, !firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        %v11 = cmt2.call @inst0b02_loop_1_loop_loop_0_loop_input_state_reg_0 @read() : () -> !firrtl.uint<32>
        %v12 = cmt2.call @inst0b02_loop_1_loop_loop_0_loop_input_state_reg_1 @read() : () -> !firrtl.uint<32>
        cmt2.if %v10 : !firrtl.uint<1> {
          cmt2.call @inst0b02_loop_1_loop_loop_0_loop_cur_reg @write(%v5) : (!firrtl.uint<32>) -> ()
          cmt2.yield
        }
        cmt2.if %v10 : !firrtl.uint<1> {
          cmt2.call @inst0b02_loop_1_loop_loop_0_loop_loop_to_body_fifo_0 @enq(%v5) : (!firrtl.uint<32>) -> ()
          cmt2.call @inst0b02_loop_1_loop_loop_0_loop_loop_to_body_fifo_1 @enq(%v1) : (!firrtl.uint<32>) -> ()
          cmt2.call @inst0b02_loop_1_loop_loop_0_loop_loop_to_body_fifo_2 @enq(%v11) : (!firrtl.uint<32>) -> ()
          cmt2.call @inst0b02_loop_1_loop_loop_0_loop_loop_to_body_fifo_3 @enq(%v12) : (!firrtl.uint<32>) -> ()
          %v13 = firrtl.constant 1 : !firrtl.uint<1>
          cmt2.call @inst0b02_loop_1_loop_loop_0_loop_token_entry_to_body @enq(%v13) : (!firrtl.uint<1>) -> ()
          cmt2.yield
        } else {
          cmt2.call @inst0b02_loop_1_loop_yield_fifo_0 @enq(%v1) : (!firrtl.uint<32>) -> ()
          %v14 = firrtl.constant 1 : !firrtl.uint<1>
          cmt2.call @inst0b02_loop_1_loop_token_body_to_next @enq(%v14) : (!firrtl.uint<1>) -> ()
          cmt2.yield
        }
        cmt2.return
      }
      cmt2.rule @inst0b02_loop_1_loop_loop_0_loop_input_distribution() -> () attributes {kiln.origin = "inst0b02_loop_1_loop_loop_0"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b02_loop_1_loop_loop_0_loop_token_entry_to_body @deq() : () -> !firrtl.uint<1>
        %v1 = cmt2.call @inst0b02_loop_1_loop_loop_0_loop_loop_to_body_fifo_0 @deq() : () -> !firrtl.uint<32>
        %v2 = cmt2.call @inst0b02_loop_1_loop_loop_0_loop_loop_to_body_fifo_1 @deq() : () -> !firrtl.uint<32>
        %v3 = cmt2.call @inst0b02_loop_1_loop_loop_0_loop_loop_to_body_fifo_2 @deq() : () -> !firrtl.uint<32>
        %v4 = cmt2.call @inst0b02_loop_1_loop_loop_0_loop_loop_to_body_fifo_3 @deq() : () -> !firrtl.uint<32>
        cmt2.call @inst0b02_loop_1_loop_loop_0_loop_dist_to_block0_fifo_v1 @enq(%v1) : (!firrtl.uint<32>) -> ()
        cmt2.call @inst0b02_loop_1_loop_loop_0_loop_dist_to_block1_fifo_v0 @enq(%v2) : (!firrtl.uint<32>) -> ()
        cmt2.call @inst0b02_loop_1_loop_loop_0_loop_dist_to_block0_fifo_v0 @enq(%v3) : (!firrtl.uint<32>) -> ()
        cmt2.call @inst0b02_loop_1_loop_loop_0_loop_dist_to_block1_fifo_v1 @enq(%v4) : (!firrtl.uint<32>) -> ()
        %v5 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @inst0b02_loop_1_loop_loop_0_loop_dist_token_fifo @enq(%v5) : (!firrtl.uint<1>) -> ()
        cmt2.return
      }
      cmt2.rule @inst0b02_loop_1_loop_loop_0_loop_block_0_slot_3_rule() -> () attributes {kiln.origin = "inst0b02_loop_1_loop_loop_0_loop_block_0"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b02_loop_1_loop_loop_0_loop_dist_token_fifo @deq() : () -> !firrtl.uint<1>
        %v1 = cmt2.call @inst0b02_loop_1_loop_loop_0_loop_dist_to_block0_fifo_v0 @deq() : () -> !firrtl.uint<32>
        %v2 = cmt2.call @inst0b02_loop_1_loop_loop_0_loop_dist_to_block0_fifo_v1 @deq() : () -> !firrtl.uint<32>
        %v3_1 = firrtl.asSInt %v2 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v3_2 = firrtl.asSInt %v1 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v3 = firrtl.lt %v3_1, %v3_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        cmt2.call @inst0b02_loop_1_loop_loop_0_loop_fifo_b0_b1_v0 @enq(%v3) : (!firrtl.uint<1>) -> ()
        %v4 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @inst0b02_loop_1_loop_loop_0_loop_token_fifo_b0_b1 @enq(%v4) : (!firrtl.uint<1>) -> ()
        cmt2.return
      }
      cmt2.rule @inst0b02_loop_1_loop_loop_0_loop_if_1_dispatch_rule() -> () attributes {kiln.origin = "inst0b02_loop_1_loop_loop_0_loop_if_1"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b02_loop_1_loop_loop_0_loop_token_fifo_b0_b1 @deq() : () -> !firrtl.uint<1>
        %v1 = cmt2.call @inst0b02_loop_1_loop_loop_0_loop_dist_to_block1_fifo_v0 @deq() : () -> !firrtl.uint<32>
        %v2 = cmt2.call @inst0b02_loop_1_loop_loop_0_loop_fifo_b0_b1_v0 @deq() : () -> !firrtl.uint<1>
        %v3 = cmt2.call @inst0b02_loop_1_loop_loop_0_loop_dist_to_block1_fifo_v1 @deq() : () -> !firrtl.uint<32>
        cmt2.if %v2 : !firrtl.uint<1> {
          cmt2.call @inst0b02_loop_1_loop_loop_0_loop_if_1_thenin0 @enq(%v1) : (!firrtl.uint<32>) -> ()
          cmt2.call @inst0b02_loop_1_loop_loop_0_loop_if_1_thenin1 @enq(%v3) : (!firrtl.uint<32>) -> ()
          %v4 = firrtl.constant 1 : !firrtl.uint<1>
          cmt2.call @inst0b02_loop_1_loop_loop_0_loop_if_1_thentok @enq(%v4) : (!firrtl.uint<1>) -> ()
          cmt2.yield
        } else {
          cmt2.call @inst0b02_loop_1_loop_loop_0_loop_if_1_elsein0 @enq(%v1) : (!firrtl.uint<32>) -> ()
          %v5 = firrtl.constant 1 : !firrtl.uint<1>
          cmt2.call @inst0b02_loop_1_loop_loop_0_loop_if_1_elsetok @enq(%v5) : (!firrtl.uint<1>) -> ()
          cmt2.yield
        }
        cmt2.return
      }
      cmt2.rule @inst0b02_loop_1_loop_loop_0_loop_if_1_then_join_rule() -> () attributes {kiln.origin = "inst0b02_loop_1_loop_loop_0_loop_if_1"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b02_loop_1_loop_loop_0_loop_if_1_thendone @deq() : () -> !firrtl.uint<1>
        %v1 = cmt2.call @inst0b02_loop_1_loop_loop_0_loop_if_1_thenres0 @deq() : () -> !firrtl.uint<32>
        cmt2.call @inst0b02_loop_1_loop_loop_0_loop_yield_fifo_0 @enq(%v1) : (!firrtl.uint<32>) -> ()
        %v2 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @inst0b02_loop_1_loop_loop_0_loop_token_body_to_next @enq(%v2) : (!firrtl.uint<1>) -> ()
        cmt2.return
      }
      cmt2.rule @inst0b02_loop_1_loop_loop_0_loop_if_1_else_join_rule() -> () attributes {kiln.origin = "inst0b02_loop_1_loop_loop_0_loop_if_1"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b02_loop_1_loop_loop_0_loop_if_1_elsedone @deq() : () -> !firrtl.uint<1>
        %v1 = cmt2.call @inst0b02_loop_1_loop_loop_0_loop_if_1_elseres0 @deq() : () -> !firrtl.uint<32>
        cmt2.call @inst0b02_loop_1_loop_loop_0_loop_yield_fifo_0 @enq(%v1) : (!firrtl.uint<32>) -> ()
        %v2 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @inst0b02_loop_1_loop_loop_0_loop_token_body_to_next @enq(%v2) : (!firrtl.uint<1>) -> ()
        cmt2.return
      }
      cmt2.rule @inst0b02_loop_1_loop_loop_0_loop_if_1_then_input_distribution() -> () attributes {kiln.origin = "inst0b02_loop_1_loop_loop_0_loop_if_1"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b02_loop_1_loop_loop_0_loop_if_1_thentok @deq() : () -> !firrtl.uint<1>
        %v1 = cmt2.call @inst0b02_loop_1_loop_loop_0_loop_if_1_thenin0 @deq() : () -> !firrtl.uint<32>
        %v2 = cmt2.call @inst0b02_loop_1_loop_loop_0_loop_if_1_thenin1 @deq() : () -> !firrtl.uint<32>
        cmt2.call @inst0b02_loop_1_loop_loop_0_loop_if_1_then_dist_to_block0_fifo_v0 @enq(%v1) : (!firrtl.uint<32>) -> ()
        cmt2.call @inst0b02_loop_1_loop_loop_0_loop_if_1_then_dist_to_block0_fifo_v1 @enq(%v2) : (!firrtl.uint<32>) -> ()
        %v3 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @inst0b02_loop_1_loop_loop_0_loop_if_1_then_dist_token_fifo @enq(%v3) : (!firrtl.uint<1>) -> ()
        cmt2.return
      }
      cmt2.rule @inst0b02_loop_1_loop_loop_0_loop_if_1_else_coord_rule() -> () attributes {kiln.origin = "inst0b02_loop_1_loop_loop_0_loop_if_1"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b02_loop_1_loop_loop_0_loop_if_1_elsetok @deq() : () -> !firrtl.uint<1>
        %v1 = cmt2.call @inst0b02_loop_1_loop_loop_0_loop_if_1_elsein0 @deq() : () -> !firrtl.uint<32>
        cmt2.call @inst0b02_loop_1_loop_loop_0_loop_if_1_elseres0 @enq(%v1) : (!firrtl.uint<32>) -> ()
        %v2 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @inst0b02_loop_1_loop_loop_0_loop_if_1_elsedone @enq(%v2) : (!firrtl.uint<1>) -> ()
        cmt2.return
      }
      cmt2.rule @inst0b02_loop_1_loop_loop_0_loop_if_1_then_block_0_slot_5_rule() -> () attributes {kiln.origin = "inst0b02_loop_1_loop_loop_0_loop_if_1_then_block_0"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b02_loop_1_loop_loop_0_loop_if_1_then_dist_token_fifo @deq() : () -> !firrtl.uint<1>
        %v1 = cmt2.call @inst0b02_loop_1_loop_loop_0_loop_if_1_then_dist_to_block0_fifo_v0 @deq() : () -> !firrtl.uint<32>
        %v2 = cmt2.call @inst0b02_loop_1_loop_loop_0_loop_if_1_then_dist_to_block0_fifo_v1 @deq() : () -> !firrtl.uint<32>
        %v3_1 = firrtl.add %v1, %v2 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<33>
        %v3 = firrtl.bits %v3_1 31 to 0 : (!firrtl.uint<33>) -> !firrtl.uint<32>
        cmt2.call @inst0b02_loop_1_loop_loop_0_loop_if_1_thenres0 @enq(%v3) : (!firrtl.uint<32>) -> ()
        %v4 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @inst0b02_loop_1_loop_loop_0_loop_if_1_thendone @enq(%v4) : (!firrtl.uint<1>) -> ()
        cmt2.return
      }
      cmt2.rule @inst0b03_block_0_slot_0_rule() -> () attributes {kiln.origin = "inst0b03_block_0"} {
        %v0 = cmt2.call @rocc_adapter @cmd() : () -> !firrtl.uint<96>
        %v1 = firrtl.bits %v0 70 to 64 : (!firrtl.uint<96>) -> !firrtl.uint<7>
        %v2 = firrtl.constant 11 : !firrtl.uint<7>
        %v3 = firrtl.eq %v1, %v2 : (!firrtl.uint<7>, !firrtl.uint<7>) -> !firrtl.uint<1>
        %v4 = firrtl.bits %v0 95 to 89 : (!firrtl.uint<96>) -> !firrtl.uint<7>
        %v5 = firrtl.constant 3 : !firrtl.uint<7>
        %v6 = firrtl.eq %v4, %v5 : (!firrtl.uint<7>, !firrtl.uint<7>) -> !firrtl.uint<1>
        %v7 = firrtl.and %v3, %v6 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        cmt2.return %v7 : !firrtl.uint<1>
      } {
        %v8 = cmt2.call @rocc_adapter @cmd_deq() : () -> !firrtl.uint<96>
        %v9 = firrtl.bits %v8 78 to 74 : (!firrtl.uint<96>) -> !firrtl.uint<5>
        cmt2.call @inst0b03_fifo_b0_b2_v1 @enq(%v9) : (!firrtl.uint<5>) -> ()
        %v10 = firrtl.bits %v8 63 to 32 : (!firrtl.uint<96>) -> !firrtl.uint<32>
        cmt2.call @inst0b03_fifo_b0_b1_v0 @enq(%v10) : (!firrtl.uint<32>) -> ()
        cmt2.call @inst0b03_fifo_b0_b2_v0 @enq(%v10) : (!firrtl.uint<32>) -> ()
        %v11 = firrtl.constant 0 : !firrtl.uint<32>
        %v12_1 = firrtl.asSInt %v10 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v12_2 = firrtl.asSInt %v11 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v12 = firrtl.gt %v12_1, %v12_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        cmt2.call @inst0b03_fifo_b0_b1_v1 @enq(%v12) : (!firrtl.uint<1>) -> ()
        %v13 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @inst0b03_token_fifo_b0_b1 @enq(%v13) : (!firrtl.uint<1>) -> ()
        cmt2.return
      }
      cmt2.rule @inst0b03_if_1_dispatch_rule() -> () attributes {kiln.origin = "inst0b03_if_1"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b03_token_fifo_b0_b1 @deq() : () -> !firrtl.uint<1>
        %v1 = cmt2.call @inst0b03_fifo_b0_b1_v0 @deq() : () -> !firrtl.uint<32>
        %v2 = cmt2.call @inst0b03_fifo_b0_b1_v1 @deq() : () -> !firrtl.uint<1>
        cmt2.if %v2 : !firrtl.uint<1> {
          cmt2.call @inst0b03_if_1_thenin0 @enq(%v1) : (!firrtl.uint<32>) -> ()
          %v3 = firrtl.constant 1 : !firrtl.uint<1>
          cmt2.call @inst0b03_if_1_thentok @enq(%v3) : (!firrtl.uint<1>) -> ()
          cmt2.yield
        } else {
          %v4 = firrtl.constant 1 : !firrtl.uint<1>
          cmt2.call @inst0b03_token_fifo_b1_b2 @enq(%v4) : (!firrtl.uint<1>) -> ()
          cmt2.yield
        }
        cmt2.return
      }
      cmt2.rule @inst0b03_if_1_then_join_rule() -> () attributes {kiln.origin = "inst0b03_if_1"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b03_if_1_thendone @deq() : () -> !firrtl.uint<1>
        %v1 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @inst0b03_token_fifo_b1_b2 @enq(%v1) : (!firrtl.uint<1>) -> ()
        cmt2.return
      }
      cmt2.rule @inst0b03_if_1_then_input_distribution() -> () attributes {kiln.origin = "inst0b03_if_1"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b03_if_1_thentok @deq() : () -> !firrtl.uint<1>
        %v1 = cmt2.call @inst0b03_if_1_thenin0 @deq() : () -> !firrtl.uint<32>
        cmt2.call @inst0b03_if_1_then_dist_to_block0_fifo_v0 @enq(%v1) : (!firrtl.uint<32>) -> ()
        %v2 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @inst0b03_if_1_then_dist_token_fifo @enq(%v2) : (!firrtl.uint<1>) -> ()
        cmt2.return
      }
      cmt2.rule @inst0b03_block_2_slot_5_rule() -> () attributes {kiln.origin = "inst0b03_block_2"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b03_token_fifo_b1_b2 @deq() : () -> !firrtl.uint<1>
        %v1 = cmt2.call @inst0b03_fifo_b0_b2_v0 @deq() : () -> !firrtl.uint<32>
        %v2 = cmt2.call @inst0b03_fifo_b0_b2_v1 @deq() : () -> !firrtl.uint<5>
        cmt2.call @inst0b03_block_2_fifo_s5_s6_v2 @enq(%v2) : (!firrtl.uint<5>) -> ()
        %v3 = cmt2.call @glbl_reg_g @read() : () -> !firrtl.uint<32>
        cmt2.call @inst0b03_block_2_fifo_s5_s6_v0 @enq(%v3) : (!firrtl.uint<32>) -> ()
        %v4 = firrtl.constant 1 : !firrtl.uint<32>
        %v5_1 = firrtl.asSInt %v1 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v5_2 = firrtl.dshr %v5_1, %v4 : (!firrtl.sint<32>, !firrtl.uint<32>) -> !firrtl.sint<32>
        %v5_3 = firrtl.asUInt %v5_2 : (!firrtl.sint<32>) -> !firrtl.uint<32>
        %v5 = firrtl.bits %v5_3 31 to 0 : (!firrtl.uint<32>) -> !firrtl.uint<32>
        cmt2.call @inst0b03_block_2_fifo_s5_s6_v1 @enq(%v5) : (!firrtl.uint<32>) -> ()
        %v6 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @inst0b03_block_2_token_fifo_s5 @enq(%v6) : (!firrtl.uint<1>) -> ()
        cmt2.return
      }
      cmt2.rule @inst0b03_block_2_slot_6_rule() -> () attributes {kiln.origin = "inst0b03_block_2"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b03_block_2_token_fifo_s5 @deq() : () -> !firrtl.uint<1>
        %v1 = cmt2.call @inst0b03_block_2_fifo_s5_s6_v0 @deq() : () -> !firrtl.uint<32>
        %v2 = cmt2.call @inst0b03_block_2_fifo_s5_s6_v1 @deq() : () -> !firrtl.uint<32>
        %v3_1 = firrtl.add %v1, %v2 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<33>
        %v3 = firrtl.bits %v3_1 31 to 0 : (!firrtl.uint<33>) -> !firrtl.uint<32>
        %v4 = cmt2.call @inst0b03_block_2_fifo_s5_s6_v2 @deq() : () -> !firrtl.uint<5>
        cmt2.call @rocc_adapter @resp_from_user(%v4, %v3) : (!firrtl.uint<5>, !firrtl.uint<32>) -> ()
        cmt2.return
      }
      cmt2.rule @inst0b03_if_1_then_block_0_slot_2_rule() -> () attributes {kiln.origin = "inst0b03_if_1_then_block_0"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b03_if_1_then_dist_token_fifo @deq() : () -> !firrtl.uint<1>
        %v1 = cmt2.call @inst0b03_if_1_then_dist_to_block0_fifo_v0 @deq() : () -> !firrtl.uint<32>
        %v2 = cmt2.call @glbl_reg_g @read() : () -> !firrtl.uint<32>
        %v3_1 = firrtl.add %v2, %v1 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<33>
        %v3 = firrtl.bits %v3_1 31 to 0 : (!firrtl.uint<33>) -> !firrtl.uint<32>
        cmt2.call @inst0b03_if_1_then_block_0_fifo_s2_s3_v0 @enq(%v3) : (!firrtl.uint<32>) -> ()
        %v4 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @inst0b03_if_1_then_block_0_token_fifo_s2 @enq(%v4) : (!firrtl.uint<1>) -> ()
        cmt2.return
      }
      cmt2.rule @inst0b03_if_1_then_block_0_slot_3_rule() -> () attributes {kiln.origin = "inst0b03_if_1_then_block_0"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b03_if_1_then_block_0_token_fifo_s2 @deq() : () -> !firrtl.uint<1>
        %v1 = cmt2.call @inst0b03_if_1_then_block_0_fifo_s2_s3_v0 @deq() : () -> !firrtl.uint<32>
        cmt2.call @glbl_reg_g @write(%v1) : (!firrtl.uint<32>) -> ()
        %v2 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @inst0b03_if_1_thendone @enq(%v2) : (!firrtl.uint<1>) -> ()
        cmt2.return
      }
      cmt2.rule @inst0b04_block_0_slot_0_rule() -> () attributes {kiln.origin = "inst0b04_block_0"} {
        %v0 = cmt2.call @rocc_adapter @cmd() : () -> !firrtl.uint<96>
        %v1 = firrtl.bits %v0 70 to 64 : (!firrtl.uint<96>) -> !firrtl.uint<7>
        %v2 = firrtl.constant 11 : !firrtl.uint<7>
        %v3 = firrtl.eq %v1, %v2 : (!firrtl.uint<7>, !firrtl.uint<7>) -> !firrtl.uint<1>
        %v4 = firrtl.bits %v0 95 to 89 : (!firrtl.uint<96>) -> !firrtl.uint<7>
        %v5 = firrtl.constant 4 : !firrtl.uint<7>
        %v6 = firrtl.eq %v4, %v5 : (!firrtl.uint<7>, !firrtl.uint<7>) -> !firrtl.uint<1>
        %v7 = firrtl.and %v3, %v6 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        cmt2.return %v7 : !firrtl.uint<1>
      } {
        %v8 = cmt2.call @rocc_adapter @cmd_deq() : () -> !firrtl.uint<96>
        %v9 = firrtl.bits %v8 78 to 74 : (!firrtl.uint<96>) -> !firrtl.uint<5>
        cmt2.call @inst0b04_fifo_b0_b2_v0 @enq(%v9) : (!firrtl.uint<5>) -> ()
        %v10 = firrtl.bits %v8 63 to 32 : (!firrtl.uint<96>) -> !firrtl.uint<32>
        cmt2.call @inst0b04_fifo_b0_b1_v0 @enq(%v10) : (!firrtl.uint<32>) -> ()
        %v11 = firrtl.bits %v8 31 to 0 : (!firrtl.uint<96>) -> !firrtl.uint<32>
        cmt2.call @inst0b04_fifo_b0_b1_v1 @enq(%v11) : (!firrtl.uint<32>) -> ()
        %v12 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @inst0b04_token_fifo_b0_b1 @enq(%v12) : (!firrtl.uint<1>) -> ()
        cmt2.return
      }
      cmt2.rule @inst0b04_loop_1_loop_entry_rule() -> () attributes {kiln.origin = "inst0b04_loop_1"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b04_token_fifo_b0_b1 @deq() : () -> !firrtl.uint<1>
        %v1 = cmt2.call @inst0b04_fifo_b0_b1_v0 @deq() : () -> !firrtl.uint<32>
        %v2 = cmt2.call @inst0b04_fifo_b0_b1_v1 @deq() : () -> !firrtl.uint<32>
        %v3 = firrtl.constant 1 : !firrtl.uint<32>
        cmt2.call @inst0b04_loop_1_loop_cur_reg @write(%v1) : (!firrtl.uint<32>) -> ()
        cmt2.call @inst0b04_loop_1_loop_ub_reg @write(%v2) : (!firrtl.uint<32>) -> ()
        cmt2.call @inst0b04_loop_1_loop_step_reg @write(%v3) : (!firrtl.uint<32>) -> ()
        %v4 = firrtl.constant 0 : !firrtl.uint<32>
        %v5 = firrtl.constant 0 : !firrtl.uint<32>
        %v6_1 = firrtl.asSInt %v3 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v6_2 = firrtl.asSInt %v5 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v6 = firrtl.lt %v6_1, %v6_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v7_1 = firrtl.asSInt %v1 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v7_2 = firrtl.asSInt %v2 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v7 = firrtl.geq %v7_1, %v7_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v8_1 = firrtl.asSInt %v1 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v8_2 = firrtl.asSInt %v2 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v8 = firrtl.leq %v8_1, %v8_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v9 = firrtl.mux(%v6, %v7, %v8) : (!firrtl.uint<1>, !firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        cmt2.if %v9 : !firrtl.uint<1> {
          cmt2.call @inst0b04_loop_1_loop_loop_to_body_fifo_0 @enq(%v1) : (!firrtl.uint<32>) -> ()
          cmt2.call @inst0b04_loop_1_loop_loop_to_body_fifo_1 @enq(%v4) : (!firrtl.uint<32>) -> ()
          %v10 = firrtl.constant 1 : !firrtl.uint<1>
          cmt2.call @inst0b04_loop_1_loop_token_entry_to_body @enq(%v10) : (!firrtl.uint<1>) -> ()
          cmt2.yield
        } else {
          cmt2.call @inst0b04_fifo_b1_b2_v0 @enq(%v4) : (!firrtl.uint<32>) -> ()
          %v11 = firrtl.constant 1 : !firrtl.uint<1>
          cmt2.call @inst0b04_token_fifo_b1_b2 @enq(%v11) : (!firrtl.uint<1>) -> ()
          cmt2.yield
        }
        cmt2.return
      }
      cmt2.rule @inst0b04_loop_1_loop_next_rule() -> () attributes {kiln.origin = "inst0b04_loop_1"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b04_loop_1_loop_token_body_to_next @deq() : () -> !firrtl.uint<1>
        %v1 = cmt2.call @inst0b04_loop_1_loop_yield_fifo_0 @deq() : () -> !firrtl.uint<32>
        %v2 = cmt2.call @inst0b04_loop_1_loop_cur_reg @read() : () -> !firrtl.uint<32>
        %v3 = cmt2.call @inst0b04_loop_1_loop_ub_reg @read() : () -> !firrtl.uint<32>
        %v4 = cmt2.call @inst0b04_loop_1_loop_step_reg @read() : () -> !firrtl.uint<32>
        %v5_1 = firrtl.add %v2, %v4 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<33>
        %v5 = firrtl.bits %v5_1 31 to 0 : (!firrtl.uint<33>) -> !firrtl.uint<32>
        %v6 = firrtl.constant 0 : !firrtl.uint<32>
        %v7_1 = firrtl.asSInt %v4 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v7_2 = firrtl.asSInt %v6 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v7 = firrtl.lt %v7_1, %v7_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v8_1 = firrtl.asSInt %v5 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v8_2 = firrtl.asSInt %v3 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v8 = firrtl.geq %v8_1, %v8_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v9_1 = firrtl.asSInt %v5 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v9_2 = firrtl.asSInt %v3 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v9 = firrtl.leq %v9_1, %v9_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v10 = firrtl.mux(%v7, %v8, %v9) : (!firrtl.uint<1>, !firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        cmt2.if %v10 : !firrtl.uint<1> {
          cmt2.call @inst0b04_loop_1_loop_cur_reg @write(%v5) : (!firrtl.uint<32>) -> ()
          cmt2.yield
        }
        cmt2.if %v10 : !firrtl.uint<1> {
          cmt2.call @inst0b04_loop_1_loop_loop_to_body_fifo_0 @enq(%v5) : (!firrtl.uint<32>) -> ()
          cmt2.call @inst0b04_loop_1_loop_loop_to_body_fifo_1 @enq(%v1) : (!firrtl.uint<32>) -> ()
          %v11 = firrtl.constant 1 : !firrtl.uint<1>
          cmt2.call @inst0b04_loop_1_loop_token_entry_to_body @enq(%v11) : (!firrtl.uint<1>) -> ()
          cmt2.yield
        } else {
          cmt2.call @inst0b04_fifo_b1_b2_v0 @enq(%v1) : (!firrtl.uint<32>) -> ()
          %v12 = firrtl.constant 1 : !firrtl.uint<1>
          cmt2.call @inst0b04_token_fifo_b1_b2 @enq(%v12) : (!firrtl.uint<1>) -> ()
          cmt2.yield
        }
        cmt2.return
      }
      cmt2.rule @inst0b04_loop_1_loop_input_distribution() -> () attributes {kiln.origin = "inst0b04_loop_1"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b04_loop_1_loop_token_entry_to_body @deq() : () -> !firrtl.uint<1>
        %v1 = cmt2.call @inst0b04_loop_1_loop_loop_to_body_fifo_0 @deq() : () -> !firrtl.uint<32>
        %v2 = cmt2.call @inst0b04_loop_1_loop_loop_to_body_fifo_1 @deq() : () -> !firrtl.uint<32>
        cmt2.call @inst0b04_loop_1_loop_dist_to_block0_fifo_v0 @enq(%v2) : (!firrtl.uint<32>) -> ()
        %v3 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @inst0b04_loop_1_loop_dist_token_fifo @enq(%v3) : (!firrtl.uint<1>) -> ()
        cmt2.return
      }
      cmt2.rule @inst0b04_block_2_slot_4_rule() -> () attributes {kiln.origin = "inst0b04_block_2"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b04_token_fifo_b1_b2 @deq() : () -> !firrtl.uint<1>
        %v1 = cmt2.call @inst0b04_fifo_b0_b2_v0 @deq() : () -> !firrtl.uint<5>
        %v2 = cmt2.call @inst0b04_fifo_b1_b2_v0 @deq() : () -> !firrtl.uint<32>
        cmt2.call @rocc_adapter @resp_from_user(%v1, %v2) : (!firrtl.uint<5>, !firrtl.uint<32>) -> ()
        cmt2.return
      }
      cmt2.rule @inst0b04_loop_1_loop_block_0_slot_2_rule() -> () attributes {kiln.origin = "inst0b04_loop_1_loop_block_0"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b04_loop_1_loop_dist_token_fifo @deq() : () -> !firrtl.uint<1>
        %v1 = cmt2.call @inst0b04_loop_1_loop_dist_to_block0_fifo_v0 @deq() : () -> !firrtl.uint<32>
        %v2 = firrtl.constant 5 : !firrtl.uint<32>
        %v3_1 = firrtl.add %v1, %v2 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<33>
        %v3 = firrtl.bits %v3_1 31 to 0 : (!firrtl.uint<33>) -> !firrtl.uint<32>
        cmt2.call @inst0b04_loop_1_loop_yield_fifo_0 @enq(%v3) : (!firrtl.uint<32>) -> ()
        %v4 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @inst0b04_loop_1_loop_token_body_to_next @enq(%v4) : (!firrtl.uint<1>) -> ()
        cmt2.return
      }
    } {kiln.circuit = "features", kiln.instructions = [{function = "sum_to_n", funct7 = 1 : i32, opcode = 11 : i32}, {function = "nested", funct7 = 2 : i32, opcode = 11 : i32}, {function = "global_if", funct7 = 3 : i32, opcode = 11 : i32}, {function = "count", funct7 = 4 : i32, opcode = 11 : i32}], precedence = [[@inst0b01_loop_1_loop_block_0_slot_2_rule, @inst0b01_block_2_slot_4_rule], [@inst0b01_block_2_slot_4_rule, @inst0b01_loop_1_loop_input_distribution], [@inst0b01_loop_1_loop_input_distribution, @inst0b01_loop_1_loop_next_rule], [@inst0b01_loop_1_loop_next_rule, @inst0b01_loop_1_loop_entry_rule], [@inst0b01_loop_1_loop_entry_rule, @inst0b01_block_0_slot_0_rule], [@inst0b01_block_0_slot_0_rule, @inst0b02_loop_1_loop_loop_0_loop_if_1_then_block_0_slot_5_rule], [@inst0b02_loop_1_loop_loop_0_loop_if_1_then_block_0_slot_5_rule, @inst0b02_loop_1_loop_loop_0_loop_if_1_else_coord_rule], [@inst0b02_loop_1_loop_loop_0_loop_if_1_else_coord_rule, @inst0b02_loop_1_loop_loop_0_loop_if_1_then_input_distribution], [@inst0b02_loop_1_loop_loop_0_loop_if_1_then_input_distribution, @inst0b02_loop_1_loop_loop_0_loop_if_1_else_join_rule], [@inst0b02_loop_1_loop_loop_0_loop_if_1_else_join_rule, @inst0b02_loop_1_loop_loop_0_loop_if_1_then_join_rule], [@inst0b02_loop_1_loop_loop_0_loop_if_1_then_join_rule, @inst0b02_loop_1_loop_loop_0_loop_if_1_dispatch_rule], [@inst0b02_loop_1_loop_loop_0_loop_if_1_dispatch_rule, @inst0b02_loop_1_loop_loop_0_loop_block_0_slot_3_rule], [@inst0b02_loop_1_loop_loop_0_loop_block_0_slot_3_rule, @inst0b02_loop_1_loop_loop_0_loop_input_distribution], [@inst0b02_loop_1_loop_loop_0_loop_input_distribution, @inst0b02_loop_1_loop_loop_0_loop_next_rule], [@inst0b02_loop_1_loop_loop_0_loop_next_rule, @inst0b02_loop_1_loop_loop_0_loop_entry_rule], [@inst0b02_loop_1_loop_loop_0_loop_entry_rule, @inst0b02_block_2_slot_10_rule], [@inst0b02_block_2_slot_10_rule, @inst0b02_loop_1_loop_input_distribution], [@inst0b02_loop_1_loop_input_distribution, @inst0b02_loop_1_loop_next_rule], [@inst0b02_loop_1_loop_next_rule, @inst0b02_loop_1_loop_entry_rule], [@inst0b02_loop_1_loop_entry_rule, @inst0b02_block_0_slot_0_rule], [@inst0b02_block_0_slot_0_rule, @inst0b03_if_1_then_block_0_slot_3_rule], [@inst0b03_if_1_then_block_0_slot_3_rule, @inst0b03_if_1_then_block_0_slot_2_rule], [@inst0b03_if_1_then_block_0_slot_2_rule, @inst0b03_block_2_slot_6_rule], [@inst0b03_block_2_slot_6_rule, @inst0b03_block_2_slot_5_rule], [@inst0b03_block_2_slot_5_rule, @inst0b03_if_1_then_input_distribution], [@inst0b03_if_1_then_input_distribution, @inst0b03_if_1_then_join_rule], [@inst0b03_if_1_then_join_rule, @inst0b03_if_1_dispatch_rule], [@inst0b03_if_1_dispatch_rule, @inst0b03_block_0_slot_0_rule], [@inst0b03_block_0_slot_0_rule, @inst0b04_loop_1_loop_block_0_slot_2_rule], [@inst0b04_loop_1_loop_block_0_slot_2_rule, @inst0b04_block_2_slot_4_rule], [@inst0b04_block_2_slot_4_rule, @inst0b04_loop_1_loop_input_distribution], [@inst0b04_loop_1_loop_input_distribution, @inst0b04_loop_1_loop_next_rule], [@inst0b04_loop_1_loop_next_rule, @inst0b04_loop_1_loop_entry_rule], [@inst0b04_loop_1_loop_entry_rule, @inst0b04_block_0_slot_0_rule]]}
  }
  firrtl.circuit "Reg_w1_i0" {
    firrtl.module @Reg_w1_i0(in %clock: !firrtl.clock, in %reset: !firrtl.uint<1>, out %read_ready: !firrtl.uint<1>, out %read_data: !firrtl.uint<1>, in %write_enable: !firrtl.uint<1>, out %write_ready: !firrtl.uint<1>, in %write_data: !firrtl.uint<1>) {
      %one = firrtl.constant 1 : !firrtl.uint<1>
      %init = firrtl.constant 0 : !firrtl.uint<1>
      %r = firrtl.regreset %clock, %reset, %init : !firrtl.clock, !firrtl.uint<1>, !firrtl.uint<1>, !firrtl.uint<1>
      firrtl.matchingconnect %read_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %write_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %read_data, %r : !firrtl.uint<1>
      firrtl.when %write_enable : !firrtl.uint<1> {
        firrtl.matchingconnect %r, %write_data : !firrtl.uint<1>
      }
    }
    firrtl.module @Reg_w32_i0(in %clock: !firrtl.clock, in %reset: !firrtl.uint<1>, out %read_ready: !firrtl.uint<1>, out %read_data: !firrtl.uint<32>, in %write_enable: !firrtl.uint<1>, out %write_ready: !firrtl.uint<1>, in %write_data: !firrtl.uint<32>) {
      %one = firrtl.constant 1 : !firrtl.uint<1>
      %init = firrtl.constant 0 : !firrtl.uint<32>
      %r = firrtl.regreset %clock, %reset, %init : !firrtl.clock, !firrtl.uint<1>, !firrtl.uint<32>, !firrtl.uint<32>
      firrtl.matchingconnect %read_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %write_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %read_data, %r : !firrtl.uint<32>
      firrtl.when %write_enable : !firrtl.uint<1> {
        firrtl.matchingconnect %r, %write_data : !firrtl.uint<32>
      }
    }
    firrtl.module @Reg_w32_i100(in %clock: !firrtl.clock, in %reset: !firrtl.uint<1>, out %read_ready: !firrtl.uint<1>, out %read_data: !firrtl.uint<32>, in %write_enable: !firrtl.uint<1>, out %write_ready: !firrtl.uint<1>, in %write_data: !firrtl.uint<32>) {
      %one = firrtl.constant 1 : !firrtl.uint<1>
      %init = firrtl.constant 100 : !firrtl.uint<32>
      %r = firrtl.regreset %clock, %reset, %init : !firrtl.clock, !firrtl.uint<1>, !firrtl.uint<32>, !firrtl.uint<32>
      firrtl.matchingconnect %read_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %write_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %read_data, %r : !firrtl.uint<32>
      firrtl.when %write_enable : !firrtl.uint<1> {
        firrtl.matchingconnect %r, %write_data : !firrtl.uint<32>
      }
    }
    firrtl.module @Reg_w5_i0(in %clock: !firrtl.clock, in %reset: !firrtl.uint<1>, out %read_ready: !firrtl.uint<1>, out %read_data: !firrtl.uint<5>, in %write_enable: !firrtl.uint<1>, out %write_ready: !firrtl.uint<1>, in %write_data: !firrtl.uint<5>) {
      %one = firrtl.constant 1 : !firrtl.uint<1>
      %init = firrtl.constant 0 : !firrtl.uint<5>
      %r = firrtl.regreset %clock, %reset, %init : !firrtl.clock, !firrtl.uint<1>, !firrtl.uint<5>, !firrtl.uint<5>
      firrtl.matchingconnect %read_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %write_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %read_data, %r : !firrtl.uint<5>
      firrtl.when %write_enable : !firrtl.uint<1> {
        firrtl.matchingconnect %r, %write_data : !firrtl.uint<5>
      }
    }
    firrtl.module @Wire_w1(in %write_enable: !firrtl.uint<1>, out %write_ready: !firrtl.uint<1>, in %write_data: !firrtl.uint<1>, out %read_ready: !firrtl.uint<1>, out %read_data: !firrtl.uint<1>) {
      %one = firrtl.constant 1 : !firrtl.uint<1>
      %zero = firrtl.constant 0 : !firrtl.uint<1>
      %v = firrtl.mux(%write_enable, %write_data, %zero) : (!firrtl.uint<1>, !firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
      firrtl.matchingconnect %write_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %read_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %read_data, %v : !firrtl.uint<1>
    }
    firrtl.module @Wire_w32(in %write_enable: !firrtl.uint<1>, out %write_ready: !firrtl.uint<1>, in %write_data: !firrtl.uint<32>, out %read_ready: !firrtl.uint<1>, out %read_data: !firrtl.uint<32>) {
      %one = firrtl.constant 1 : !firrtl.uint<1>
      %zero = firrtl.constant 0 : !firrtl.uint<32>
      %v = firrtl.mux(%write_enable, %write_data, %zero) : (!firrtl.uint<1>, !firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<32>
      firrtl.matchingconnect %write_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %read_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %read_data, %v : !firrtl.uint<32>
    }
    firrtl.module @Wire_w5(in %write_enable: !firrtl.uint<1>, out %write_ready: !firrtl.uint<1>, in %write_data: !firrtl.uint<5>, out %read_ready: !firrtl.uint<1>, out %read_data: !firrtl.uint<5>) {
      %one = firrtl.constant 1 : !firrtl.uint<1>
      %zero = firrtl.constant 0 : !firrtl.uint<5>
      %v = firrtl.mux(%write_enable, %write_data, %zero) : (!firrtl.uint<1>, !firrtl.uint<5>, !firrtl.uint<5>) -> !firrtl.uint<5>
      firrtl.matchingconnect %write_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %read_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %read_data, %v : !firrtl.uint<5>
    }
  }
}
