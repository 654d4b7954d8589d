// kiln: rules for `keywords`
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
    cmt2.module.extern.firrtl @Bank_w32_d2_i0 : @Bank_w32_d2_i0(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
      cmt2.bind.bare %clk, @clock : !firrtl.clock
      cmt2.bind.bare %rst, @reset : !firrtl.uint<1>
      cmt2.bind.method @read : (!firrtl.uint<1>) -> !firrtl.uint<32> [enable = "read_enable", ready = "read_ready", arguments = ["read_addr"], results = ["read_data"]]
      cmt2.bind.method @read_0 : (!firrtl.uint<1>) -> () [enable = "read_0_enable", ready = "read_0_ready", arguments = ["read_0_addr"], results = []]
      cmt2.bind.value @read_1 : () -> !firrtl.uint<32> [ready = "read_1_ready", arguments = [], results = ["read_1_data"]]
      cmt2.bind.method @write : (!firrtl.uint<1>, !firrtl.uint<32>) -> () [enable = "write_enable", ready = "write_ready", arguments = ["write_addr", "write_data"], results = []]
      cmt2.bind.method @dma_read : (!firrtl.uint<1>) -> !firrtl.uint<32> [enable = "dma_read_enable", ready = "dma_read_ready", arguments = ["dma_read_addr"], results = ["dma_read_data"]]
      cmt2.bind.method @dma_write : (!firrtl.uint<1>, !firrtl.uint<32>) -> () [enable = "dma_write_enable", ready = "dma_write_ready", arguments = ["dma_write_addr", "dma_write_data"], results = []]
    } {conflict = [[@write, @write], [@dma_write, @dma_write]], sequenceBefore = [[@read, @write], [@read_0, @write], [@read_1, @read_0], [@dma_read, @write], [@write, @dma_write]]}
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
    cmt2.module.extern.firrtl @Reg_w32_i10 : @Reg_w32_i10(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
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
      cmt2.instance @glbl_reg_logic = @Reg_w32_i10(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @tri = @Bank_w32_d2_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b05_block_0_fifo_s1_s2_v0 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b05_block_0_fifo_s1_s2_v1 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b05_block_0_fifo_s0_s2_v0 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b05_block_0_fifo_s2_s3_v0 = @FIFO1_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b05_block_0_fifo_s0_s3_v0 = @FIFO1_w5(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b05_block_0_token_fifo_s0 = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b05_block_0_token_fifo_s1 = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst0b05_block_0_token_fifo_s2 = @FIFO1_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.rule @inst0b05_block_0_slot_0_rule() -> () attributes {kiln.origin = "inst0b05_block_0"} {
        %v0 = cmt2.call @rocc_adapter @cmd() : () -> !firrtl.uint<96>
        %v1 = firrtl.bits %v0 70 to 64 : (!firrtl.uint<96>) -> !firrtl.uint<7>
        %v2 = firrtl.constant 11 : !firrtl.uint<7>
        %v3 = firrtl.eq %v1, %v2 : (!firrtl.uint<7>, !firrtl.uint<7>) -> !firrtl.uint<1>
        %v4 = firrtl.bits %v0 95 to 89 : (!firrtl.uint<96>) -> !firrtl.uint<7>
        %v5 = firrtl.constant 5 : !firrtl.uint<7>
        %v6 = firrtl.eq %v4, %v5 : (!firrtl.uint<7>, !firrtl.uint<7>) -> !firrtl.uint<1>
        %v7 = firrtl.and %v3, %v6 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        cmt2.return %v7 : !firrtl.uint<1>
      } {
        %v8 = cmt2.call @rocc_adapter @cmd_deq() : () -> !firrtl.uint<96>
        %v9 = firrtl.bits %v8 78 to 74 : (!firrtl.uint<96>) -> !firrtl.uint<5>
        cmt2.call @inst0b05_block_0_fifo_s0_s3_v0 @enq(%v9) : (!firrtl.uint<5>) -> ()
        %v10 = firrtl.bits %v8 63 to 32 : (!firrtl.uint<96>) -> !firrtl.uint<32>
        cmt2.call @inst0b05_block_0_fifo_s0_s2_v0 @enq(%v10) : (!firrtl.uint<32>) -> ()
        %v11 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @inst0b05_block_0_token_fifo_s0 @enq(%v11) : (!firrtl.uint<1>) -> ()
        cmt2.return
      }
      cmt2.rule @inst0b05_block_0_slot_1_rule() -> () attributes {kiln.origin = "inst0b05_block_0"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b05_block_0_token_fifo_s0 @deq() : () -> !firrtl.uint<1>
        %v1 = firrtl.constant 0 : !firrtl.uint<32>
        %v2 = firrtl.bits %v1 0 to 0 : (!firrtl.uint<32>) -> !firrtl.uint<1>
        %v3 = cmt2.call @tri @read(%v2) : (!firrtl.uint<1>) -> !firrtl.uint<32>
        cmt2.call @inst0b05_block_0_fifo_s1_s2_v0 @enq(%v3) : (!firrtl.uint<32>) -> ()
        %v4 = cmt2.call @glbl_reg_logic @read() : () -> !firrtl.uint<32>
        cmt2.call @inst0b05_block_0_fifo_s1_s2_v1 @enq(%v4) : (!firrtl.uint<32>) -> ()
        %v5 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @inst0b05_block_0_token_fifo_s1 @enq(%v5) : (!firrtl.uint<1>) -> ()
        cmt2.return
      }
      cmt2.rule @inst0b05_block_0_slot_2_rule() -> () attributes {kiln.origin = "inst0b05_block_0"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b05_block_0_token_fifo_s1 @deq() : () -> !firrtl.uint<1>
        %v1 = cmt2.call @inst0b05_block_0_fifo_s1_s2_v0 @deq() : () -> !firrtl.uint<32>
        %v2 = cmt2.call @inst0b05_block_0_fifo_s1_s2_v1 @deq() : () -> !firrtl.uint<32>
        %v3_1 = firrtl.add %v1, %v2 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<33>
        %v3 = firrtl.bits %v3_1 31 to 0 : (!firrtl.uint<33>) -> !firrtl.uint<32>
        %v4 = cmt2.call @inst0b05_block_0_fifo_s0_s2_v0 @deq() : () -> !firrtl.uint<32>
        %v5_1 = firrtl.mul %v3, %v4 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<64>
        %v5 = firrtl.bits %v5_1 31 to 0 : (!firrtl.uint<64>) -> !firrtl.uint<32>
        cmt2.call @inst0b05_block_0_fifo_s2_s3_v0 @enq(%v5) : (!firrtl.uint<32>) -> ()
        %v6 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @inst0b05_block_0_token_fifo_s2 @enq(%v6) : (!firrtl.uint<1>) -> ()
        cmt2.return
      }
      cmt2.rule @inst0b05_block_0_slot_3_rule() -> () attributes {kiln.origin = "inst0b05_block_0"} {
        %true = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %true : !firrtl.uint<1>
      } {
        %v0 = cmt2.call @inst0b05_block_0_token_fifo_s2 @deq() : () -> !firrtl.uint<1>
        %v1 = cmt2.call @inst0b05_block_0_fifo_s2_s3_v0 @deq() : () -> !firrtl.uint<32>
        cmt2.call @glbl_reg_logic @write(%v1) : (!firrtl.uint<32>) -> ()
        %v2 = cmt2.call @inst0b05_block_0_fifo_s0_s3_v0 @deq() : () -> !firrtl.uint<5>
        cmt2.call @rocc_adapter @resp_from_user(%v2, %v1) : (!firrtl.uint<5>, !firrtl.uint<32>) -> ()
        cmt2.return
      }
    } {kiln.circuit = "keywords", kiln.instructions = [{function = "dist", funct7 = 5 : i32, opcode = 11 : i32}], precedence = [[@inst0b05_block_0_slot_3_rule, @inst0b05_block_0_slot_2_rule], [@inst0b05_block_0_slot_2_rule, @inst0b05_block_0_slot_1_rule], [@inst0b05_block_0_slot_1_rule, @inst0b05_block_0_slot_0_rule]]}
  }
  firrtl.circuit "Bank_w32_d2_i0" {
    firrtl.module @Bank_w32_d2_i0(in %clock: !firrtl.clock, in %reset: !firrtl.uint<1>, in %read_enable: !firrtl.uint<1>, out %read_ready: !firrtl.uint<1>, in %read_addr: !firrtl.uint<1>, out %read_data: !firrtl.uint<32>, in %read_0_enable: !firrtl.uint<1>, out %read_0_ready: !firrtl.uint<1>, in %read_0_addr: !firrtl.uint<1>, out %read_1_ready: !firrtl.uint<1>, out %read_1_data: !firrtl.uint<32>, in %write_enable: !firrtl.uint<1>, out %write_ready: !firrtl.uint<1>, in %write_addr: !firrtl.uint<1>, in %write_data: !firrtl.uint<32>, in %dma_read_enable: !firrtl.uint<1>, out %dma_read_ready: !firrtl.uint<1>, in %dma_read_addr: !firrtl.uint<1>, out %dma_read_data: !firrtl.uint<32>, in %dma_write_enable: !firrtl.uint<1>, out %dma_write_ready: !firrtl.uint<1>, in %dma_write_addr: !firrtl.uint<1>, in %dma_write_data: !firrtl.uint<32>) {
      %one = firrtl.constant 1 : !firrtl.uint<1>
      %zero = firrtl.constant 0 : !firrtl.uint<32>
      %depth = firrtl.constant 2 : !firrtl.uint<2>
      %init = firrtl.aggregateconstant [5, 6] : !firrtl.vector<uint<32>, 2>
      %mem = firrtl.regreset %clock, %reset, %init : !firrtl.clock, !firrtl.uint<1>, !firrtl.vector<uint<32>, 2>, !firrtl.vector<uint<32>, 2>
      %latch = firrtl.regreset %clock, %reset, %zero : !firrtl.clock, !firrtl.uint<1>, !firrtl.uint<32>, !firrtl.uint<32>
      firrtl.matchingconnect %read_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %read_0_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %read_1_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %write_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %dma_read_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %dma_write_ready, %one : !firrtl.uint<1>
      %read_ok = firrtl.lt %read_addr, %depth : (!firrtl.uint<1>, !firrtl.uint<2>) -> !firrtl.uint<1>
      %read_el = firrtl.subaccess %mem[%read_addr] : !firrtl.vector<uint<32>, 2>, !firrtl.uint<1>
      %read_v = firrtl.mux(%read_ok, %read_el, %zero) : (!firrtl.uint<1>, !firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<32>
      %read_0_ok = firrtl.lt %read_0_addr, %depth : (!firrtl.uint<1>, !firrtl.uint<2>) -> !firrtl.uint<1>
      %read_0_el = firrtl.subaccess %mem[%read_0_addr] : !firrtl.vector<uint<32>, 2>, !firrtl.uint<1>
      %read_0_v = firrtl.mux(%read_0_ok, %read_0_el, %zero) : (!firrtl.uint<1>, !firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<32>
      %dma_read_ok = firrtl.lt %dma_read_addr, %depth : (!firrtl.uint<1>, !firrtl.uint<2>) -> !firrtl.uint<1>
      %dma_read_el = firrtl.subaccess %mem[%dma_read_addr] : !firrtl.vector<uint<32>, 2>, !firrtl.uint<1>
      %dma_read_v = firrtl.mux(%dma_read_ok, %dma_read_el, %zero) : (!firrtl.uint<1>, !firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<32>
      firrtl.matchingconnect %read_data, %read_v : !firrtl.uint<32>
      firrtl.matchingconnect %dma_read_data, %dma_read_v : !firrtl.uint<32>
      firrtl.matchingconnect %read_1_data, %latch : !firrtl.uint<32>
      firrtl.when %read_0_enable : !firrtl.uint<1> {
        firrtl.matchingconnect %latch, %read_0_v : !firrtl.uint<32>
      }
      %write_ok = firrtl.lt %write_addr, %depth : (!firrtl.uint<1>, !firrtl.uint<2>) -> !firrtl.uint<1>
      %write_go = firrtl.and %write_enable, %write_ok : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
      firrtl.when %write_go : !firrtl.uint<1> {
        %write_el = firrtl.subaccess %mem[%write_addr] : !firrtl.vector<uint<32>, 2>, !firrtl.uint<1>
        firrtl.matchingconnect %write_el, %write_data : !firrtl.uint<32>
      }
      %dma_write_ok = firrtl.lt %dma_write_addr, %depth : (!firrtl.uint<1>, !firrtl.uint<2>) -> !firrtl.uint<1>
      %dma_write_go = firrtl.and %dma_write_enable, %dma_write_ok : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
      firrtl.when %dma_write_go : !firrtl.uint<1> {
        %dma_write_el = firrtl.subaccess %mem[%dma_write_addr] : !firrtl.vector<uint<32>, 2>, !firrtl.uint<1>
        firrtl.matchingconnect %dma_write_el, %dma_write_data : !firrtl.uint<32>
      }
    }
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
    firrtl.module @Reg_w32_i10(in %clock: !firrtl.clock, in %reset: !firrtl.uint<1>, out %read_ready: !firrtl.uint<1>, out %read_data: !firrtl.uint<32>, in %write_enable: !firrtl.uint<1>, out %write_ready: !firrtl.uint<1>, in %write_data: !firrtl.uint<32>) {
      %one = firrtl.constant 1 : !firrtl.uint<1>
      %init = firrtl.constant 10 : !firrtl.uint<32>
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
