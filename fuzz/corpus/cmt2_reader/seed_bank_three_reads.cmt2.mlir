// kiln: rules for `bank_three_reads`
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
    cmt2.module.extern.firrtl @Bank_w32_d4 : @Bank_w32_d4(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
      cmt2.bind.bare %clk, @clock : !firrtl.clock
      cmt2.bind.bare %rst, @reset : !firrtl.uint<1>
      cmt2.bind.method @read.inst2b00_loop_1_loop_block_0_slot_6_rule.0 : (!firrtl.uint<2>) -> !firrtl.uint<32> [enable = "read0_enable", ready = "read0_ready", arguments = ["read0_addr"], results = ["read0_data"]]
      cmt2.bind.method @write.inst2b00_loop_1_loop_block_0_slot_7_rule.0 : (!firrtl.uint<2>, !firrtl.uint<32>) -> () [enable = "write0_enable", ready = "write0_ready", arguments = ["write0_addr", "write0_data"], results = []]
      cmt2.bind.value @read_1 : () -> !firrtl.uint<32> [ready = "read_1_ready", arguments = [], results = ["read_1_data"]]
      cmt2.bind.method @dma_read : (!firrtl.uint<2>) -> !firrtl.uint<32> [enable = "dma_read_enable", ready = "dma_read_ready", arguments = ["dma_read_addr"], results = ["dma_read_data"]]
      cmt2.bind.method @dma_write : (!firrtl.uint<2>, !firrtl.uint<32>) -> () [enable = "dma_write_enable", ready = "dma_write_ready", arguments = ["dma_write_addr", "dma_write_data"], results = []]
    } {conflict = [[@read.inst2b00_loop_1_loop_block_0_slot_6_rule.0, @read.inst2b00_loop_1_loop_block_0_slot_6_rule.0], [@write.inst2b00_loop_1_loop_block_0_slot_7_rule.0, @write.inst2b00_loop_1_loop_block_0_slot_7_rule.0], [@dma_write, @dma_write]], sequenceBefore = [[@write.inst2b00_loop_1_loop_block_0_slot_7_rule.0, @dma_write], [@dma_read, @dma_write]]}
    cmt2.module.extern.firrtl @Bank_w32_d4_i0 : @Bank_w32_d4_i0(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
      cmt2.bind.bare %clk, @clock : !firrtl.clock
      cmt2.bind.bare %rst, @reset : !firrtl.uint<1>
      cmt2.bind.method @read.inst2b00_loop_1_loop_block_0_slot_6_rule.0 : (!firrtl.uint<2>) -> !firrtl.uint<32> [enable = "read0_enable", ready = "read0_ready", arguments = ["read0_addr"], results = ["read0_data"]]
      cmt2.bind.method @read.inst2b00_loop_1_loop_block_0_slot_6_rule.1 : (!firrtl.uint<2>) -> !firrtl.uint<32> [enable = "read1_enable", ready = "read1_ready", arguments = ["read1_addr"], results = ["read1_data"]]
      cmt2.bind.method @read.inst2b00_loop_1_loop_block_0_slot_6_rule.2 : (!firrtl.uint<2>) -> !firrtl.uint<32> [enable = "read2_enable", ready = "read2_ready", arguments = ["read2_addr"], results = ["read2_data"]]
      cmt2.bind.value @read_1 : () -> !firrtl.uint<32> [ready = "read_1_ready", arguments = [], results = ["read_1_data"]]
      cmt2.bind.method @dma_read : (!firrtl.uint<2>) -> !firrtl.uint<32> [enable = "dma_read_enable", ready = "dma_read_ready", arguments = ["dma_read_addr"], results = ["dma_read_data"]]
      cmt2.bind.method @dma_write : (!firrtl.uint<2>, !firrtl.uint<32>) -> () [enable = "dma_write_enable", ready = "dma_write_ready", arguments = ["dma_write_addr", "dma_write_data"], results = []]
    } {conflict = [[@read.inst2b00_loop_1_loop_block_0_slot_6_rule.0, @read.inst2b00_loop_1_loop_block_0_slot_6_rule.0], [@read.inst2b00_loop_1_loop_block_0_slot_6_rule.1, @read.inst2b00_loop_1_loop_block_0_slot_6_rule.1], [@read.inst2b00_loop_1_loop_block_0_slot_6_rule.2, @read.inst2b00_loop_1_loop_block_0_slot_6_rule.2], [@dma_write, @dma_write]], sequenceBefore = [[@dma_read, @dma_write]]}
    cmt2.module.extern.firrtl @Bank_w32_d4_i1 : @Bank_w32_d4_i1(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
      cmt2.bind.bare %clk, @clock : !firrtl.clock
      cmt2.bind.bare %rst, @reset : !firrtl.uint<1>
      cmt2.bind.method @read.inst2b00_loop_1_loop_block_0_slot_6_rule.0 : (!firrtl.uint<2>) -> !firrtl.uint<32> [enable = "read0_enable", ready = "read0_ready", arguments = ["read0_addr"], results = ["read0_data"]]
      cmt2.bind.value @read_1 : () -> !firrtl.uint<32> [ready = "read_1_ready", arguments = [], results = ["read_1_data"]]
      cmt2.bind.method @dma_read : (!firrtl.uint<2>) -> !firrtl.uint<32> [enable = "dma_read_enable", ready = "dma_read_ready", arguments = ["dma_read_addr"], results = ["dma_read_data"]]
      cmt2.bind.method @dma_write : (!firrtl.uint<2>, !firrtl.uint<32>) -> () [enable = "dma_write_enable", ready = "dma_write_ready", arguments = ["dma_write_addr", "dma_write_data"], results = []]
    } {conflict = [[@read.inst2b00_loop_1_loop_block_0_slot_6_rule.0, @read.inst2b00_loop_1_loop_block_0_slot_6_rule.0], [@dma_write, @dma_write]], sequenceBefore = [[@dma_read, @dma_write]]}
    cmt2.module.extern.firrtl @Bank_w32_d4_i2 : @Bank_w32_d4_i2(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
      cmt2.bind.bare %clk, @clock : !firrtl.clock
      cmt2.bind.bare %rst, @reset : !firrtl.uint<1>
      cmt2.bind.method @read.inst2b00_loop_1_loop_block_0_slot_6_rule.0 : (!firrtl.uint<2>) -> !firrtl.uint<32> [enable = "read0_enable", ready = "read0_ready", arguments = ["read0_addr"], results = ["read0_data"]]
      cmt2.bind.value @read_1 : () -> !firrtl.uint<32> [ready = "read_1_ready", arguments = [], results = ["read_1_data"]]
      cmt2.bind.method @dma_read : (!firrtl.uint<2>) -> !firrtl.uint<32> [enable = "dma_read_enable", ready = "dma_read_ready", arguments = ["dma_read_addr"], results = ["dma_read_data"]]
      cmt2.bind.method @dma_write : (!firrtl.uint<2>, !firrtl.uint<32>) -> () [enable = "dma_write_enable", ready = "dma_write_ready", arguments = ["dma_write_addr", "dma_write_data"], results = []]
    } {conflict = [[@read.inst2b00_loop_1_loop_block_0_slot_6_rule.0, @read.inst2b00_loop_1_loop_block_0_slot_6_rule.0], [@dma_write, @dma_write]], sequenceBefore = [[@dma_read, @dma_write]]}
    cmt2.module.extern.firrtl @Bank_w32_d4_i3 : @Bank_w32_d4_i3(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
      cmt2.bind.bare %clk, @clock : !firrtl.clock
      cmt2.bind.bare %rst, @reset : !firrtl.uint<1>
      cmt2.bind.method @read.inst2b00_loop_1_loop_block_0_slot_6_rule.0 : (!firrtl.uint<2>) -> !firrtl.uint<32> [enable = "read0_enable", ready = "read0_ready", arguments = ["read0_addr"], results = ["read0_data"]]
      cmt2.bind.value @read_1 : () -> !firrtl.uint<32> [ready = "read_1_ready", arguments = [], results = ["read_1_data"]]
      cmt2.bind.method @dma_read : (!firrtl.uint<2>) -> !firrtl.uint<32> [enable = "dma_read_enable", ready = "dma_read_ready", arguments = ["dma_read_addr"], results = ["dma_read_data"]]
      cmt2.bind.method @dma_write : (!firrtl.uint<2>, !firrtl.uint<32>) -> () [enable = "dma_write_enable", ready = "dma_write_ready", arguments = ["dma_write_addr", "dma_write_data"], results = []]
    } {conflict = [[@read.inst2b00_loop_1_loop_block_0_slot_6_rule.0, @read.inst2b00_loop_1_loop_block_0_slot_6_rule.0], [@dma_write, @dma_write]], sequenceBefore = [[@dma_read, @dma_write]]}
    cmt2.module.extern.firrtl @Reg_w32_i0 : @Reg_w32_i0(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
      cmt2.bind.bare %clk, @clock : !firrtl.clock
      cmt2.bind.bare %rst, @reset : !firrtl.uint<1>
      cmt2.bind.value @read : () -> !firrtl.uint<32> [ready = "read_ready", arguments = [], results = ["read_data"]]
      cmt2.bind.method @write : (!firrtl.uint<32>) -> () [enable = "write_enable", ready = "write_ready", arguments = ["write_data"], results = []]
    } {conflict = [[@write, @write]], sequenceBefore = [[@read, @write]]}
    cmt2.module.extern.firrtl @Reg_w4_i0 : @Reg_w4_i0(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
      cmt2.bind.bare %clk, @clock : !firrtl.clock
      cmt2.bind.bare %rst, @reset : !firrtl.uint<1>
      cmt2.bind.value @read : () -> !firrtl.uint<4> [ready = "read_ready", arguments = [], results = ["read_data"]]
      cmt2.bind.method @write : (!firrtl.uint<4>) -> () [enable = "write_enable", ready = "write_ready", arguments = ["write_data"], results = []]
    } {conflict = [[@write, @write]], sequenceBefore = [[@read, @write]]}
    cmt2.module.extern.firrtl @Reg_w5_i0 : @Reg_w5_i0(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
      cmt2.bind.bare %clk, @clock : !firrtl.clock
      cmt2.bind.bare %rst, @reset : !firrtl.uint<1>
      cmt2.bind.value @read : () -> !firrtl.uint<5> [ready = "read_ready", arguments = [], results = ["read_data"]]
      cmt2.bind.method @write : (!firrtl.uint<5>) -> () [enable = "write_enable", ready = "write_ready", arguments = ["write_data"], results = []]
    } {conflict = [[@write, @write]], sequenceBefore = [[@read, @write]]}
    cmt2.module @main(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
      cmt2.interface.decl @rocc_adapter : @RoCC
      cmt2.interface.decl @dma : @BurstDMA {kiln.latency = 0 : i32, kiln.memory_map = [{banks = ["mem_a_0", "mem_a_1", "mem_a_2", "mem_a_3"], base = 0 : i64, cyclic = true, elem_bytes = 4 : i64, name = "mem_a", size = 64 : i64}, {banks = ["mem_b_0", "mem_b_1", "mem_b_2", "mem_b_3"], base = 64 : i64, cyclic = true, elem_bytes = 4 : i64, name = "mem_b", size = 64 : i64}, {banks = ["mem_c_0", "mem_c_1", "mem_c_2", "mem_c_3"], base = 128 : i64, cyclic = true, elem_bytes = 4 : i64, name = "mem_c", size = 64 : i64}]}
      cmt2.interface.decl @hellacache_adapter : @MemPort
      cmt2.instance @mem_a_0 = @Bank_w32_d4_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @mem_a_1 = @Bank_w32_d4_i1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @mem_a_2 = @Bank_w32_d4_i2(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @mem_a_3 = @Bank_w32_d4_i3(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @mem_b_0 = @Bank_w32_d4(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @mem_b_1 = @Bank_w32_d4(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @mem_b_2 = @Bank_w32_d4(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @mem_b_3 = @Bank_w32_d4(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @mem_c_0 = @Bank_w32_d4(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @mem_c_1 = @Bank_w32_d4(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @mem_c_2 = @Bank_w32_d4(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @mem_c_3 = @Bank_w32_d4(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst2b00_pc = @Reg_w4_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst2b00_arg2 = @Reg_w5_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst2b00_block_0_reg0 = @Reg_w32_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst2b00_block_0_reg1 = @Reg_w32_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst2b00_loop_1_loop_block_0_reg0 = @Reg_w32_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst2b00_loop_1_loop_block_0_reg1 = @Reg_w32_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst2b00_loop_1_loop_block_0_reg2 = @Reg_w32_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst2b00_loop_1_loop_block_0_reg3 = @Reg_w32_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst2b00_loop_1_loop_block_0_reg4 = @Reg_w32_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst2b00_loop_1_loop_block_0_reg5 = @Reg_w32_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst2b00_loop_1_loop_block_0_reg6 = @Reg_w32_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst2b00_loop_1_loop_block_0_reg7 = @Reg_w32_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst2b00_loop_1_loop_iv = @Reg_w32_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.method @dma_mem_a_0_read(%addr: !firrtl.uint<2>) -> (!firrtl.uint<32>) {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        %0 = cmt2.call @mem_a_0 @dma_read(%addr) : (!firrtl.uint<2>) -> !firrtl.uint<32>
        cmt2.return %0 : !firrtl.uint<32>
      }
      cmt2.method @dma_mem_a_0_write(%addr: !firrtl.uint<2>, %data: !firrtl.uint<32>) -> () {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        cmt2.call @mem_a_0 @dma_write(%addr, %data) : (!firrtl.uint<2>, !firrtl.uint<32>) -> ()
        cmt2.return
      }
      cmt2.method @dma_mem_a_1_read(%addr: !firrtl.uint<2>) -> (!firrtl.uint<32>) {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        %0 = cmt2.call @mem_a_1 @dma_read(%addr) : (!firrtl.uint<2>) -> !firrtl.uint<32>
        cmt2.return %0 : !firrtl.uint<32>
      }
      cmt2.method @dma_mem_a_1_write(%addr: !firrtl.uint<2>, %data: !firrtl.uint<32>) -> () {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        cmt2.call @mem_a_1 @dma_write(%addr, %data) : (!firrtl.uint<2>, !firrtl.uint<32>) -> ()
        cmt2.return
      }
      cmt2.method @dma_mem_a_2_read(%addr: !firrtl.uint<2>) -> (!firrtl.uint<32>) {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        %0 = cmt2.call @mem_a_2 @dma_read(%addr) : (!firrtl.uint<2>) -> !firrtl.uint<32>
        cmt2.return %0 : !firrtl.uint<32>
      }
      cmt2.method @dma_mem_a_2_write(%addr: !firrtl.uint<2>, %data: !firrtl.uint<32>) -> () {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        cmt2.call @mem_a_2 @dma_write(%addr, %data) : (!firrtl.uint<2>, !firrtl.uint<32>) -> ()
        cmt2.return
      }
      cmt2.method @dma_mem_a_3_read(%addr: !firrtl.uint<2>) -> (!firrtl.uint<32>) {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        %0 = cmt2.call @mem_a_3 @dma_read(%addr) : (!firrtl.uint<2>) -> !firrtl.uint<32>
        cmt2.return %0 : !firrtl.uint<32>
      }
      cmt2.method @dma_mem_a_3_write(%addr: !firrtl.uint<2>, %data: !firrtl.uint<32>) -> () {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        cmt2.call @mem_a_3 @dma_write(%addr, %data) : (!firrtl.uint<2>, !firrtl.uint<32>) -> ()
        cmt2.return
      }
      cmt2.method @dma_mem_b_0_read(%addr: !firrtl.uint<2>) -> (!firrtl.uint<32>) {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        %0 = cmt2.call @mem_b_0 @dma_read(%addr) : (!firrtl.uint<2>) -> !firrtl.uint<32>
        cmt2.return %0 : !firrtl.uint<32>
      }
      cmt2.method @dma_mem_b_0_write(%addr: !firrtl.uint<2>, %data: !firrtl.uint<32>) -> () {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        cmt2.call @mem_b_0 @dma_write(%addr, %data) : (!firrtl.uint<2>, !firrtl.uint<32>) -> ()
        cmt2.return
      }
      cmt2.method @dma_mem_b_1_read(%addr: !firrtl.uint<2>) -> (!firrtl.uint<32>) {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        %0 = cmt2.call @mem_b_1 @dma_read(%addr) : (!firrtl.uint<2>) -> !firrtl.uint<32>
        cmt2.return %0 : !firrtl.uint<32>
      }
      cmt2.method @dma_mem_b_1_write(%addr: !firrtl.uint<2>, %data: !firrtl.uint<32>) -> () {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        cmt2.call @mem_b_1 @dma_write(%addr, %data) : (!firrtl.uint<2>, !firrtl.uint<32>) -> ()
        cmt2.return
      }
      cmt2.method @dma_mem_b_2_read(%addr: !firrtl.uint<2>) -> (!firrtl.uint<32>) {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        %0 = cmt2.call @mem_b_2 @dma_read(%addr) : (!firrtl.uint<2>) -> !firrtl.uint<32>
        cmt2.return %0 : !firrtl.uint<32>
      }
      cmt2.method @dma_mem_b_2_write(%addr: !firrtl.uint<2>, %data: !firrtl.uint<32>) -> () {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        cmt2.call @mem_b_2 @dma_write(%addr, %data) : (!firrtl.uint<2>, !firrtl.uint<32>) -> ()
        cmt2.return
      }
      cmt2.method @dma_mem_b_3_read(%addr: !firrtl.uint<2>) -> (!firrtl.uint<32>) {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        %0 = cmt2.call @mem_b_3 @dma_read(%addr) : (!firrtl.uint<2>) -> !firrtl.uint<32>
        cmt2.return %0 : !firrtl.uint<32>
      }
      cmt2.method @dma_mem_b_3_write(%addr: !firrtl.uint<2>, %data: !firrtl.uint<32>) -> () {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        cmt2.call @mem_b_3 @dma_write(%addr, %data) : (!firrtl.uint<2>, !firrtl.uint<32>) -> ()
        cmt2.return
      }
      cmt2.method @dma_mem_c_0_read(%addr: !firrtl.uint<2>) -> (!firrtl.uint<32>) {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        %0 = cmt2.call @mem_c_0 @dma_read(%addr) : (!firrtl.uint<2>) -> !firrtl.uint<32>
        cmt2.return %0 : !firrtl.uint<32>
      }
      cmt2.method @dma_mem_c_0_write(%addr: !firrtl.uint<2>, %data: !firrtl.uint<32>) -> () {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        cmt2.call @mem_c_0 @dma_write(%addr, %data) : (!firrtl.uint<2>, !firrtl.uint<32>) -> ()
        cmt2.return
      }
      cmt2.method @dma_mem_c_1_read(%addr: !firrtl.uint<2>) -> (!firrtl.uint<32>) {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        %0 = cmt2.call @mem_c_1 @dma_read(%addr) : (!firrtl.uint<2>) -> !firrtl.uint<32>
        cmt2.return %0 : !firrtl.uint<32>
      }
      cmt2.method @dma_mem_c_1_write(%addr: !firrtl.uint<2>, %data: !firrtl.uint<32>) -> () {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        cmt2.call @mem_c_1 @dma_write(%addr, %data) : (!firrtl.uint<2>, !firrtl.uint<32>) -> ()
        cmt2.return
      }
      cmt2.method @dma_mem_c_2_read(%addr: !firrtl.uint<2>) -> (!firrtl.uint<32>) {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        %0 = cmt2.call @mem_c_2 @dma_read(%addr) : (!firrtl.uint<2>) -> !firrtl.uint<32>
        cmt2.return %0 : !firrtl.uint<32>
      }
      cmt2.method @dma_mem_c_2_write(%addr: !firrtl.uint<2>, %data: !firrtl.uint<32>) -> () {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        cmt2.call @mem_c_2 @dma_write(%addr, %data) : (!firrtl.uint<2>, !firrtl.uint<32>) -> ()
        cmt2.return
      }
      cmt2.method @dma_mem_c_3_read(%addr: !firrtl.uint<2>) -> (!firrtl.uint<32>) {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        %0 = cmt2.call @mem_c_3 @dma_read(%addr) : (!firrtl.uint<2>) -> !firrtl.uint<32>
        cmt2.return %0 : !firrtl.uint<32>
      }
      cmt2.method @dma_mem_c_3_write(%addr: !firrtl.uint<2>, %data: !firrtl.uint<32>) -> () {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        cmt2.call @mem_c_3 @dma_write(%addr, %data) : (!firrtl.uint<2>, !firrtl.uint<32>) -> ()
        cmt2.return
      }
      cmt2.rule @inst2b00_block_0_slot_0_rule() -> () attributes {kiln.origin = "inst2b00_block_0"} {
        %v0 = cmt2.call @inst2b00_pc @read() : () -> !firrtl.uint<4>
        %v1 = firrtl.constant 0 : !firrtl.uint<4>
        %v2 = firrtl.eq %v0, %v1 : (!firrtl.uint<4>, !firrtl.uint<4>) -> !firrtl.uint<1>
        %v3 = cmt2.call @rocc_adapter @cmd() : () -> !firrtl.uint<96>
        %v4 = firrtl.bits %v3 70 to 64 : (!firrtl.uint<96>) -> !firrtl.uint<7>
        %v5 = firrtl.constant 43 : !firrtl.uint<7>
        %v6 = firrtl.eq %v4, %v5 : (!firrtl.uint<7>, !firrtl.uint<7>) -> !firrtl.uint<1>
        %v7 = firrtl.and %v2, %v6 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        %v8 = firrtl.bits %v3 95 to 89 : (!firrtl.uint<96>) -> !firrtl.uint<7>
        %v9 = firrtl.constant 0 : !firrtl.uint<7>
        %v10 = firrtl.eq %v8, %v9 : (!firrtl.uint<7>, !firrtl.uint<7>) -> !firrtl.uint<1>
        %v11 = firrtl.and %v7, %v10 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        cmt2.return %v11 : !firrtl.uint<1>
      } {
        %v12 = cmt2.call @rocc_adapter @cmd_deq() : () -> !firrtl.uint<96>
        %v13 = firrtl.bits %v12 78 to 74 : (!firrtl.uint<96>) -> !firrtl.uint<5>
        cmt2.call @inst2b00_arg2 @write(%v13) : (!firrtl.uint<5>) -> ()
        %v14 = firrtl.bits %v12 63 to 32 : (!firrtl.uint<96>) -> !firrtl.uint<32>
        %v15 = firrtl.bits %v12 31 to 0 : (!firrtl.uint<96>) -> !firrtl.uint<32>
        cmt2.call @inst2b00_block_0_reg0 @write(%v14) : (!firrtl.uint<32>) -> ()
        cmt2.call @inst2b00_block_0_reg1 @write(%v15) : (!firrtl.uint<32>) -> ()
        %v16 = firrtl.constant 1 : !firrtl.uint<4>
        cmt2.call @inst2b00_pc @write(%v16) : (!firrtl.uint<4>) -> ()
        cmt2.return
      }
      cmt2.rule @inst2b00_block_0_slot_1_rule() -> () attributes {kiln.origin = "inst2b00_block_0"} {
        %v0 = cmt2.call @inst2b00_pc @read() : () -> !firrtl.uint<4>
        %v1 = firrtl.constant 1 : !firrtl.uint<4>
        %v2 = firrtl.eq %v0, %v1 : (!firrtl.uint<4>, !firrtl.uint<4>) -> !firrtl.uint<1>
        cmt2.return %v2 : !firrtl.uint<1>
      } {
        %v3 = cmt2.call @inst2b00_block_0_reg0 @read() : () -> !firrtl.uint<32>
        %v4 = firrtl.constant 0 : !firrtl.uint<32>
        %v5 = firrtl.constant 4 : !firrtl.uint<32>
        %v6_1 = firrtl.mul %v4, %v5 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<64>
        %v6 = firrtl.bits %v6_1 31 to 0 : (!firrtl.uint<64>) -> !firrtl.uint<32>
        %v7 = firrtl.constant 0 : !firrtl.uint<32>
        %v8_1 = firrtl.add %v7, %v6 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<33>
        %v8 = firrtl.bits %v8_1 31 to 0 : (!firrtl.uint<33>) -> !firrtl.uint<32>
        %v9 = firrtl.constant 6 : !firrtl.uint<4>
        cmt2.call @dma @cpu_to_isax(%v3, %v8, %v9) : (!firrtl.uint<32>, !firrtl.uint<32>, !firrtl.uint<4>) -> ()
        %v10 = firrtl.constant 2 : !firrtl.uint<4>
        cmt2.call @inst2b00_pc @write(%v10) : (!firrtl.uint<4>) -> ()
        cmt2.return
      }
      cmt2.rule @inst2b00_block_0_slot_2_rule() -> () attributes {kiln.origin = "inst2b00_block_0"} {
        %v0 = cmt2.call @inst2b00_pc @read() : () -> !firrtl.uint<4>
        %v1 = firrtl.constant 2 : !firrtl.uint<4>
        %v2 = firrtl.eq %v0, %v1 : (!firrtl.uint<4>, !firrtl.uint<4>) -> !firrtl.uint<1>
        cmt2.return %v2 : !firrtl.uint<1>
      } {
        %v3 = cmt2.call @dma @poll_for_idle() : () -> !firrtl.uint<1>
        %v4 = cmt2.call @inst2b00_block_0_reg1 @read() : () -> !firrtl.uint<32>
        %v5 = firrtl.constant 0 : !firrtl.uint<32>
        %v6 = firrtl.constant 4 : !firrtl.uint<32>
        %v7_1 = firrtl.mul %v5, %v6 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<64>
        %v7 = firrtl.bits %v7_1 31 to 0 : (!firrtl.uint<64>) -> !firrtl.uint<32>
        %v8 = firrtl.constant 64 : !firrtl.uint<32>
        %v9_1 = firrtl.add %v8, %v7 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<33>
        %v9 = firrtl.bits %v9_1 31 to 0 : (!firrtl.uint<33>) -> !firrtl.uint<32>
        %v10 = firrtl.constant 6 : !firrtl.uint<4>
        cmt2.call @dma @cpu_to_isax(%v4, %v9, %v10) : (!firrtl.uint<32>, !firrtl.uint<32>, !firrtl.uint<4>) -> ()
        %v11 = firrtl.constant 3 : !firrtl.uint<32>
        %v12 = firrtl.constant 1 : !firrtl.uint<32>
        %v13 = firrtl.constant 0 : !firrtl.uint<32>
        %v14_1 = firrtl.asSInt %v12 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v14_2 = firrtl.asSInt %v13 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v14 = firrtl.lt %v14_1, %v14_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v15_1 = firrtl.asSInt %v5 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v15_2 = firrtl.asSInt %v11 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v15 = firrtl.geq %v15_1, %v15_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v16_1 = firrtl.asSInt %v5 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v16_2 = firrtl.asSInt %v11 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v16 = firrtl.leq %v16_1, %v16_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v17 = firrtl.mux(%v14, %v15, %v16) : (!firrtl.uint<1>, !firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        %v18 = firrtl.constant 0 : !firrtl.uint<1>
        %v19 = firrtl.eq %v17, %v18 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        %v20 = firrtl.constant 4 : !firrtl.uint<4>
        %v21 = firrtl.constant 7 : !firrtl.uint<4>
        cmt2.call @inst2b00_loop_1_loop_iv @write(%v5) : (!firrtl.uint<32>) -> ()
        %v22 = firrtl.mux(%v17, %v20, %v21) : (!firrtl.uint<1>, !firrtl.uint<4>, !firrtl.uint<4>) -> !firrtl.uint<4>
        cmt2.call @inst2b00_pc @write(%v22) : (!firrtl.uint<4>) -> ()
        cmt2.return
      }
      cmt2.rule @inst2b00_loop_1_loop_block_0_slot_6_rule() -> () attributes {kiln.origin = "inst2b00_loop_1_loop_block_0"} {
        %v0 = cmt2.call @inst2b00_pc @read() : () -> !firrtl.uint<4>
        %v1 = firrtl.constant 3 : !firrtl.uint<4>
        %v2 = firrtl.eq %v0, %v1 : (!firrtl.uint<4>, !firrtl.uint<4>) -> !firrtl.uint<1>
        %v3 = firrtl.constant 4 : !firrtl.uint<4>
        %v4 = firrtl.eq %v0, %v3 : (!firrtl.uint<4>, !firrtl.uint<4>) -> !firrtl.uint<1>
        %v5 = firrtl.or %v2, %v4 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        cmt2.return %v5 : !firrtl.uint<1>
      } {
        %v6 = cmt2.call @inst2b00_pc @read() : () -> !firrtl.uint<4>
        %v7 = firrtl.constant 4 : !firrtl.uint<4>
        %v8 = firrtl.eq %v6, %v7 : (!firrtl.uint<4>, !firrtl.uint<4>) -> !firrtl.uint<1>
        cmt2.if %v8 : !firrtl.uint<1> {
          %v9 = cmt2.call @dma @poll_for_idle() : () -> !firrtl.uint<1>
          cmt2.yield
        }
        %v10 = cmt2.call @inst2b00_loop_1_loop_iv @read() : () -> !firrtl.uint<32>
        %v11 = firrtl.bits %v10 1 to 0 : (!firrtl.uint<32>) -> !firrtl.uint<2>
        %v12 = cmt2.call @mem_a_0 @read.inst2b00_loop_1_loop_block_0_slot_6_rule.0(%v11) : (!firrtl.uint<2>) -> !firrtl.uint<32>
        %v13 = firrtl.constant 1 : !firrtl.uint<32>
        %v14 = firrtl.bits %v13 1 to 0 : (!firrtl.uint<32>) -> !firrtl.uint<2>
        %v15 = cmt2.call @mem_a_0 @read.inst2b00_loop_1_loop_block_0_slot_6_rule.1(%v14) : (!firrtl.uint<2>) -> !firrtl.uint<32>
        %v16 = firrtl.constant 3 : !firrtl.uint<32>
        %v17 = firrtl.bits %v16 1 to 0 : (!firrtl.uint<32>) -> !firrtl.uint<2>
        %v18 = cmt2.call @mem_a_0 @read.inst2b00_loop_1_loop_block_0_slot_6_rule.2(%v17) : (!firrtl.uint<2>) -> !firrtl.uint<32>
        %v19 = firrtl.bits %v10 1 to 0 : (!firrtl.uint<32>) -> !firrtl.uint<2>
        %v20 = cmt2.call @mem_b_0 @read.inst2b00_loop_1_loop_block_0_slot_6_rule.0(%v19) : (!firrtl.uint<2>) -> !firrtl.uint<32>
        %v21 = firrtl.bits %v10 1 to 0 : (!firrtl.uint<32>) -> !firrtl.uint<2>
        %v22 = cmt2.call @mem_a_1 @read.inst2b00_loop_1_loop_block_0_slot_6_rule.0(%v21) : (!firrtl.uint<2>) -> !firrtl.uint<32>
        %v23 = firrtl.bits %v10 1 to 0 : (!firrtl.uint<32>) -> !firrtl.uint<2>
        %v24 = cmt2.call @mem_b_1 @read.inst2b00_loop_1_loop_block_0_slot_6_rule.0(%v23) : (!firrtl.uint<2>) -> !firrtl.uint<32>
        %v25 = firrtl.bits %v10 1 to 0 : (!firrtl.uint<32>) -> !firrtl.uint<2>
        %v26 = cmt2.call @mem_a_2 @read.inst2b00_loop_1_loop_block_0_slot_6_rule.0(%v25) : (!firrtl.uint<2>) -> !firrtl.uint<32>
        %v27 = firrtl.bits %v10 1 to 0 : (!firrtl.uint<32>) -> !firrtl.uint<2>
        %v28 = cmt2.call @mem_b_2 @read.inst2b00_loop_1_loop_block_0_slot_6_rule.0(%v27) : (!firrtl.uint<2>) -> !firrtl.uint<32>
        %v29 = firrtl.bits %v10 1 to 0 : (!firrtl.uint<32>) -> !firrtl.uint<2>
        %v30 = cmt2.call @mem_a_3 @read.inst2b00_loop_1_loop_block_0_slot_6_rule.0(%v29) : (!firrtl.uint<2>) -> !firrtl.uint<32>
        %v31 = firrtl.bits %v10 1 to 0 : (!firrtl.uint<32>) -> !firrtl.uint<2>
        %v32 = cmt2.call @mem_b_3 @read.inst2b00_loop_1_loop_block_0_slot_6_rule.0(%v31) : (!firrtl.uint<2>) -> !firrtl.uint<32>
        cmt2.call @inst2b00_loop_1_loop_block_0_reg0 @write(%v12) : (!firrtl.uint<32>) -> ()
        cmt2.call @inst2b00_loop_1_loop_block_0_reg1 @write(%v20) : (!firrtl.uint<32>) -> ()
        cmt2.call @inst2b00_loop_1_loop_block_0_reg2 @write(%v22) : (!firrtl.uint<32>) -> ()
        cmt2.call @inst2b00_loop_1_loop_block_0_reg3 @write(%v24) : (!firrtl.uint<32>) -> ()
        cmt2.call @inst2b00_loop_1_loop_block_0_reg4 @write(%v26) : (!firrtl.uint<32>) -> ()
        cmt2.call @inst2b00_loop_1_loop_block_0_reg5 @write(%v28) : (!firrtl.uint<32>) -> ()
        cmt2.call @inst2b00_loop_1_loop_block_0_reg6 @write(%v30) : (!firrtl.uint<32>) -> ()
        cmt2.call @inst2b00_loop_1_loop_block_0_reg7 @write(%v32) : (!firrtl.uint<32>) -> ()
        %v33 = firrtl.constant 5 : !firrtl.uint<4>
        cmt2.call @inst2b00_pc @write(%v33) : (!firrtl.uint<4>) -> ()
        cmt2.return
      }
      cmt2.rule @inst2b00_loop_1_loop_block_0_slot_7_rule() -> () attributes {kiln.origin = "inst2b00_loop_1_loop_block_0"} {
        %v0 = cmt2.call @inst2b00_pc @read() : () -> !firrtl.uint<4>
        %v1 = firrtl.constant 5 : !firrtl.uint<4>
        %v2 = firrtl.eq %v0, %v1 : (!firrtl.uint<4>, !firrtl.uint<4>) -> !firrtl.uint<1>
        cmt2.return %v2 : !firrtl.uint<1>
      } {
        %v3 = cmt2.call @inst2b00_loop_1_loop_block_0_reg0 @read() : () -> !firrtl.uint<32>
        %v4 = cmt2.call @inst2b00_loop_1_loop_block_0_reg1 @read() : () -> !firrtl.uint<32>
        %v5_1 = firrtl.add %v3, %v4 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<33>
        %v5 = firrtl.bits %v5_1 31 to 0 : (!firrtl.uint<33>) -> !firrtl.uint<32>
        %v6 = cmt2.call @inst2b00_loop_1_loop_iv @read() : () -> !firrtl.uint<32>
        %v7 = firrtl.bits %v6 1 to 0 : (!firrtl.uint<32>) -> !firrtl.uint<2>
        cmt2.call @mem_c_0 @write.inst2b00_loop_1_loop_block_0_slot_7_rule.0(%v7, %v5) : (!firrtl.uint<2>, !firrtl.uint<32>) -> ()
        %v8 = cmt2.call @inst2b00_loop_1_loop_block_0_reg2 @read() : () -> !firrtl.uint<32>
        %v9 = cmt2.call @inst2b00_loop_1_loop_block_0_reg3 @read() : () -> !firrtl.uint<32>
        %v10_1 = firrtl.add %v8, %v9 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<33>
        %v10 = firrtl.bits %v10_1 31 to 0 : (!firrtl.uint<33>) -> !firrtl.uint<32>
        %v11 = firrtl.bits %v6 1 to 0 : (!firrtl.uint<32>) -> !firrtl.uint<2>
        cmt2.call @mem_c_1 @write.inst2b00_loop_1_loop_block_0_slot_7_rule.0(%v11, %v10) : (!firrtl.uint<2>, !firrtl.uint<32>) -> ()
        %v12 = cmt2.call @inst2b00_loop_1_loop_block_0_reg4 @read() : () -> !firrtl.uint<32>
        %v13 = cmt2.call @inst2b00_loop_1_loop_block_0_reg5 @read() : () -> !firrtl.uint<32>
        %v14_1 = firrtl.add %v12, %v13 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<33>
        %v14 = firrtl.bits %v14_1 31 to 0 : (!firrtl.uint<33>) -> !firrtl.uint<32>
        %v15 = firrtl.bits %v6 1 to 0 : (!firrtl.uint<32>) -> !firrtl.uint<2>
        cmt2.call @mem_c_2 @write.inst2b00_loop_1_loop_block_0_slot_7_rule.0(%v15, %v14) : (!firrtl.uint<2>, !firrtl.uint<32>) -> ()
        %v16 = cmt2.call @inst2b00_loop_1_loop_block_0_reg6 @read() : () -> !firrtl.uint<32>
        %v17 = cmt2.call @inst2b00_loop_1_loop_block_0_reg7 @read() : () -> !firrtl.uint<32>
        %v18_1 = firrtl.add %v16, %v17 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<33>
        %v18 = firrtl.bits %v18_1 31 to 0 : (!firrtl.uint<33>) -> !firrtl.uint<32>
        %v19 = firrtl.bits %v6 1 to 0 : (!firrtl.uint<32>) -> !firrtl.uint<2>
        cmt2.call @mem_c_3 @write.inst2b00_loop_1_loop_block_0_slot_7_rule.0(%v19, %v18) : (!firrtl.uint<2>, !firrtl.uint<32>) -> ()
        %v20 = firrtl.constant 3 : !firrtl.uint<32>
        %v21 = firrtl.constant 1 : !firrtl.uint<32>
        %v22_1 = firrtl.add %v6, %v21 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<33>
        %v22 = firrtl.bits %v22_1 31 to 0 : (!firrtl.uint<33>) -> !firrtl.uint<32>
        %v23 = firrtl.constant 0 : !firrtl.uint<32>
        %v24_1 = firrtl.asSInt %v21 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v24_2 = firrtl.asSInt %v23 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v24 = firrtl.lt %v24_1, %v24_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v25_1 = firrtl.asSInt %v22 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v25_2 = firrtl.asSInt %v20 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v25 = firrtl.geq %v25_1, %v25_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v26_1 = firrtl.asSInt %v22 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v26_2 = firrtl.asSInt %v20 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v26 = firrtl.leq %v26_1, %v26_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v27 = firrtl.mux(%v24, %v25, %v26) : (!firrtl.uint<1>, !firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        %v28 = firrtl.constant 0 : !firrtl.uint<1>
        %v29 = firrtl.eq %v27, %v28 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        %v30 = firrtl.constant 3 : !firrtl.uint<4>
        %v31 = firrtl.constant 6 : !firrtl.uint<4>
        cmt2.call @inst2b00_loop_1_loop_iv @write(%v22) : (!firrtl.uint<32>) -> ()
        %v32 = firrtl.mux(%v27, %v30, %v31) : (!firrtl.uint<1>, !firrtl.uint<4>, !firrtl.uint<4>) -> !firrtl.uint<4>
        cmt2.call @inst2b00_pc @write(%v32) : (!firrtl.uint<4>) -> ()
        cmt2.return
      }
      cmt2.rule @inst2b00_block_2_slot_11_rule() -> () attributes {kiln.origin = "inst2b00_block_2"} {
        %v0 = cmt2.call @inst2b00_pc @read() : () -> !firrtl.uint<4>
        %v1 = firrtl.constant 6 : !firrtl.uint<4>
        %v2 = firrtl.eq %v0, %v1 : (!firrtl.uint<4>, !firrtl.uint<4>) -> !firrtl.uint<1>
        %v3 = firrtl.constant 7 : !firrtl.uint<4>
        %v4 = firrtl.eq %v0, %v3 : (!firrtl.uint<4>, !firrtl.uint<4>) -> !firrtl.uint<1>
        %v5 = firrtl.or %v2, %v4 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        cmt2.return %v5 : !firrtl.uint<1>
      } {
        %v6 = cmt2.call @inst2b00_pc @read() : () -> !firrtl.uint<4>
        %v7 = firrtl.constant 7 : !firrtl.uint<4>
        %v8 = firrtl.eq %v6, %v7 : (!firrtl.uint<4>, !firrtl.uint<4>) -> !firrtl.uint<1>
        cmt2.if %v8 : !firrtl.uint<1> {
          %v9 = cmt2.call @dma @poll_for_idle() : () -> !firrtl.uint<1>
          cmt2.yield
        }
        %v10 = cmt2.call @inst2b00_block_0_reg0 @read() : () -> !firrtl.uint<32>
        %v11 = firrtl.constant 0 : !firrtl.uint<32>
        %v12 = firrtl.constant 4 : !firrtl.uint<32>
        %v13_1 = firrtl.mul %v11, %v12 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<64>
        %v13 = firrtl.bits %v13_1 31 to 0 : (!firrtl.uint<64>) -> !firrtl.uint<32>
        %v14 = firrtl.constant 128 : !firrtl.uint<32>
        %v15_1 = firrtl.add %v14, %v13 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<33>
        %v15 = firrtl.bits %v15_1 31 to 0 : (!firrtl.uint<33>) -> !firrtl.uint<32>
        %v16 = firrtl.constant 6 : !firrtl.uint<4>
        cmt2.call @dma @isax_to_cpu(%v10, %v15, %v16) : (!firrtl.uint<32>, !firrtl.uint<32>, !firrtl.uint<4>) -> ()
        %v17 = firrtl.constant 8 : !firrtl.uint<4>
        cmt2.call @inst2b00_pc @write(%v17) : (!firrtl.uint<4>) -> ()
        cmt2.return
      }
      cmt2.rule @inst2b00_block_2_slot_12_rule() -> () attributes {kiln.origin = "inst2b00_block_2"} {
        %v0 = cmt2.call @inst2b00_pc @read() : () -> !firrtl.uint<4>
        %v1 = firrtl.constant 8 : !firrtl.uint<4>
        %v2 = firrtl.eq %v0, %v1 : (!firrtl.uint<4>, !firrtl.uint<4>) -> !firrtl.uint<1>
        cmt2.return %v2 : !firrtl.uint<1>
      } {
        %v3 = cmt2.call @dma @poll_for_idle() : () -> !firrtl.uint<1>
        %v4 = firrtl.constant 42 : !firrtl.uint<32>
        %v5 = cmt2.call @inst2b00_arg2 @read() : () -> !firrtl.uint<5>
        cmt2.call @rocc_adapter @resp_from_user(%v5, %v4) : (!firrtl.uint<5>, !firrtl.uint<32>) -> ()
        %v6 = firrtl.constant 0 : !firrtl.uint<4>
        cmt2.call @inst2b00_pc @write(%v6) : (!firrtl.uint<4>) -> ()
        cmt2.return
      }
    } {kiln.circuit = "bank_three_reads", kiln.instructions = [{function = "flow_burst_add", funct7 = 0 : i32, opcode = 43 : i32}], precedence = [[@inst2b00_block_2_slot_12_rule, @inst2b00_block_2_slot_11_rule], [@inst2b00_block_2_slot_11_rule, @inst2b00_loop_1_loop_block_0_slot_7_rule], [@inst2b00_loop_1_loop_block_0_slot_7_rule, @inst2b00_loop_1_loop_block_0_slot_6_rule], [@inst2b00_loop_1_loop_block_0_slot_6_rule, @inst2b00_block_0_slot_2_rule], [@inst2b00_block_0_slot_2_rule, @inst2b00_block_0_slot_1_rule], [@inst2b00_block_0_slot_1_rule, @inst2b00_block_0_slot_0_rule]]}
  }
  firrtl.circuit "Bank_w32_d4" {
    firrtl.module @Bank_w32_d4(in %clock: !firrtl.clock, in %reset: !firrtl.uint<1>, in %read0_enable: !firrtl.uint<1>, out %read0_ready: !firrtl.uint<1>, in %read0_addr: !firrtl.uint<2>, out %read0_data: !firrtl.uint<32>, in %write0_enable: !firrtl.uint<1>, out %write0_ready: !firrtl.uint<1>, in %write0_addr: !firrtl.uint<2>, in %write0_data: !firrtl.uint<32>, out %read_1_ready: !firrtl.uint<1>, out %read_1_data: !firrtl.uint<32>, in %dma_read_enable: !firrtl.uint<1>, out %dma_read_ready: !firrtl.uint<1>, in %dma_read_addr: !firrtl.uint<2>, out %dma_read_data: !firrtl.uint<32>, in %dma_write_enable: !firrtl.uint<1>, out %dma_write_ready: !firrtl.uint<1>, in %dma_write_addr: !firrtl.uint<2>, in %dma_write_data: !firrtl.uint<32>) {
      %one = firrtl.constant 1 : !firrtl.uint<1>
      %zero = firrtl.constant 0 : !firrtl.uint<32>
      %depth = firrtl.constant 4 : !firrtl.uint<3>
      %init = firrtl.aggregateconstant [0, 0, 0, 0] : !firrtl.vector<uint<32>, 4>
      %mem = firrtl.regreset %clock, %reset, %init : !firrtl.clock, !firrtl.uint<1>, !firrtl.vector<uint<32>, 4>, !firrtl.vector<uint<32>, 4>
      %latch = firrtl.regreset %clock, %reset, %zero : !firrtl.clock, !firrtl.uint<1>, !firrtl.uint<32>, !firrtl.uint<32>
      firrtl.matchingconnect %read0_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %write0_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %read_1_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %dma_read_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %dma_write_ready, %one : !firrtl.uint<1>
      %read0_ok = firrtl.lt %read0_addr, %depth : (!firrtl.uint<2>, !firrtl.uint<3>) -> !firrtl.uint<1>
      %read0_el = firrtl.subaccess %mem[%read0_addr] : !firrtl.vector<uint<32>, 4>, !firrtl.uint<2>
      %read0_v = firrtl.mux(%read0_ok, %read0_el, %zero) : (!firrtl.uint<1>, !firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<32>
      firrtl.matchingconnect %read0_data, %read0_v : !firrtl.uint<32>
      %dma_read_ok = firrtl.lt %dma_read_addr, %depth : (!firrtl.uint<2>, !firrtl.uint<3>) -> !firrtl.uint<1>
      %dma_read_el = firrtl.subaccess %mem[%dma_read_addr] : !firrtl.vector<uint<32>, 4>, !firrtl.uint<2>
      %dma_read_v = firrtl.mux(%dma_read_ok, %dma_read_el, %zero) : (!firrtl.uint<1>, !firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<32>
      firrtl.matchingconnect %dma_read_data, %dma_read_v : !firrtl.uint<32>
      firrtl.matchingconnect %read_1_data, %latch : !firrtl.uint<32>
      %write0_ok = firrtl.lt %write0_addr, %depth : (!firrtl.uint<2>, !firrtl.uint<3>) -> !firrtl.uint<1>
      %write0_go = firrtl.and %write0_enable, %write0_ok : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
      firrtl.when %write0_go : !firrtl.uint<1> {
        %write0_el = firrtl.subaccess %mem[%write0_addr] : !firrtl.vector<uint<32>, 4>, !firrtl.uint<2>
        firrtl.matchingconnect %write0_el, %write0_data : !firrtl.uint<32>
      }
      %dma_write_ok = firrtl.lt %dma_write_addr, %depth : (!firrtl.uint<2>, !firrtl.uint<3>) -> !firrtl.uint<1>
      %dma_write_go = firrtl.and %dma_write_enable, %dma_write_ok : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
      firrtl.when %dma_write_go : !firrtl.uint<1> {
        %dma_write_el = firrtl.subaccess %mem[%dma_write_addr] : !firrtl.vector<uint<32>, 4>, !firrtl.uint<2>
        firrtl.matchingconnect %dma_write_el, %dma_write_data : !firrtl.uint<32>
      }
    }
    firrtl.module @Bank_w32_d4_i0(in %clock: !firrtl.clock, in %reset: !firrtl.uint<1>, in %read0_enable: !firrtl.uint<1>, out %read0_ready: !firrtl.uint<1>, in %read0_addr: !firrtl.uint<2>, out %read0_data: !firrtl.uint<32>, in %read1_enable: !firrtl.uint<1>, out %read1_ready: !firrtl.uint<1>, in %read1_addr: !firrtl.uint<2>, out %read1_data: !firrtl.uint<32>, in %read2_enable: !firrtl.uint<1>, out %read2_ready: !firrtl.uint<1>, in %read2_addr: !firrtl.uint<2>, out %read2_data: !firrtl.uint<32>, out %read_1_ready: !firrtl.uint<1>, out %read_1_data: !firrtl.uint<32>, in %dma_read_enable: !firrtl.uint<1>, out %dma_read_ready: !firrtl.uint<1>, in %dma_read_addr: !firrtl.uint<2>, out %dma_read_data: !firrtl.uint<32>, in %dma_write_enable: !firrtl.uint<1>, out %dma_write_ready: !firrtl.uint<1>, in %dma_write_addr: !firrtl.uint<2>, in %dma_write_data: !firrtl.uint<32>) {
      %one = firrtl.constant 1 : !firrtl.uint<1>
      %zero = firrtl.constant 0 : !firrtl.uint<32>
      %depth = firrtl.constant 4 : !firrtl.uint<3>
      %init = firrtl.aggregateconstant [1, 5, 9, 13] : !firrtl.vector<uint<32>, 4>
      %mem = firrtl.regreset %clock, %reset, %init : !firrtl.clock, !firrtl.uint<1>, !firrtl.vector<uint<32>, 4>, !firrtl.vector<uint<32>, 4>
      %latch = firrtl.regreset %clock, %reset, %zero : !firrtl.clock, !firrtl.uint<1>, !firrtl.uint<32>, !firrtl.uint<32>
      firrtl.matchingconnect %read0_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %read1_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %read2_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %read_1_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %dma_read_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %dma_write_ready, %one : !firrtl.uint<1>
      %read0_ok = firrtl.lt %read0_addr, %depth : (!firrtl.uint<2>, !firrtl.uint<3>) -> !firrtl.uint<1>
      %read0_el = firrtl.subaccess %mem[%read0_addr] : !firrtl.vector<uint<32>, 4>, !firrtl.uint<2>
      %read0_v = firrtl.mux(%read0_ok, %read0_el, %zero) : (!firrtl.uint<1>, !firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<32>
      firrtl.matchingconnect %read0_data, %read0_v : !firrtl.uint<32>
      %read1_ok = firrtl.lt %read1_addr, %depth : (!firrtl.uint<2>, !firrtl.uint<3>) -> !firrtl.uint<1>
      %read1_el = firrtl.subaccess %mem[%read1_addr] : !firrtl.vector<uint<32>, 4>, !firrtl.uint<2>
      %read1_v = firrtl.mux(%read1_ok, %read1_el, %zero) : (!firrtl.uint<1>, !firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<32>
      firrtl.matchingconnect %read1_data, %read1_v : !firrtl.uint<32>
      %read2_ok = firrtl.lt %read2_addr, %depth : (!firrtl.uint<2>, !firrtl.uint<3>) -> !firrtl.uint<1>
      %read2_el = firrtl.subaccess %mem[%read2_addr] : !firrtl.vector<uint<32>, 4>, !firrtl.uint<2>
      %read2_v = firrtl.mux(%read2_ok, %read2_el, %zero) : (!firrtl.uint<1>, !firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<32>
      firrtl.matchingconnect %read2_data, %read2_v : !firrtl.uint<32>
      %dma_read_ok = firrtl.lt %dma_read_addr, %depth : (!firrtl.uint<2>, !firrtl.uint<3>) -> !firrtl.uint<1>
      %dma_read_el = firrtl.subaccess %mem[%dma_read_addr] : !firrtl.vector<uint<32>, 4>, !firrtl.uint<2>
      %dma_read_v = firrtl.mux(%dma_read_ok, %dma_read_el, %zero) : (!firrtl.uint<1>, !firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<32>
      firrtl.matchingconnect %dma_read_data, %dma_read_v : !firrtl.uint<32>
      firrtl.matchingconnect %read_1_data, %latch : !firrtl.uint<32>
      %dma_write_ok = firrtl.lt %dma_write_addr, %depth : (!firrtl.uint<2>, !firrtl.uint<3>) -> !firrtl.uint<1>
      %dma_write_go = firrtl.and %dma_write_enable, %dma_write_ok : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
      firrtl.when %dma_write_go : !firrtl.uint<1> {
        %dma_write_el = firrtl.subaccess %mem[%dma_write_addr] : !firrtl.vector<uint<32>, 4>, !firrtl.uint<2>
        firrtl.matchingconnect %dma_write_el, %dma_write_data : !firrtl.uint<32>
      }
    }
    firrtl.module @Bank_w32_d4_i1(in %clock: !firrtl.clock, in %reset: !firrtl.uint<1>, in %read0_enable: !firrtl.uint<1>, out %read0_ready: !firrtl.uint<1>, in %read0_addr: !firrtl.uint<2>, out %read0_data: !firrtl.uint<32>, out %read_1_ready: !firrtl.uint<1>, out %read_1_data: !firrtl.uint<32>, in %dma_read_enable: !firrtl.uint<1>, out %dma_read_ready: !firrtl.uint<1>, in %dma_read_addr: !firrtl.uint<2>, out %dma_read_data: !firrtl.uint<32>, in %dma_write_enable: !firrtl.uint<1>, out %dma_write_ready: !firrtl.uint<1>, in %dma_write_addr: !firrtl.uint<2>, in %dma_write_data: !firrtl.uint<32>) {
      %one = firrtl.constant 1 : !firrtl.uint<1>
      %zero = firrtl.constant 0 : !firrtl.uint<32>
      %depth = firrtl.constant 4 : !firrtl.uint<3>
      %init = firrtl.aggregateconstant [2, 6, 10, 14] : !firrtl.vector<uint<32>, 4>
      %mem = firrtl.regreset %clock, %reset, %init : !firrtl.clock, !firrtl.uint<1>, !firrtl.vector<uint<32>, 4>, !firrtl.vector<uint<32>, 4>
      %latch = firrtl.regreset %clock, %reset, %zero : !firrtl.clock, !firrtl.uint<1>, !firrtl.uint<32>, !firrtl.uint<32>
      firrtl.matchingconnect %read0_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %read_1_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %dma_read_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %dma_write_ready, %one : !firrtl.uint<1>
      %read0_ok = firrtl.lt %read0_addr, %depth : (!firrtl.uint<2>, !firrtl.uint<3>) -> !firrtl.uint<1>
      %read0_el = firrtl.subaccess %mem[%read0_addr] : !firrtl.vector<uint<32>, 4>, !firrtl.uint<2>
      %read0_v = firrtl.mux(%read0_ok, %read0_el, %zero) : (!firrtl.uint<1>, !firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<32>
      firrtl.matchingconnect %read0_data, %read0_v : !firrtl.uint<32>
      %dma_read_ok = firrtl.lt %dma_read_addr, %depth : (!firrtl.uint<2>, !firrtl.uint<3>) -> !firrtl.uint<1>
      %dma_read_el = firrtl.subaccess %mem[%dma_read_addr] : !firrtl.vector<uint<32>, 4>, !firrtl.uint<2>
      %dma_read_v = firrtl.mux(%dma_read_ok, %dma_read_el, %zero) : (!firrtl.uint<1>, !firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<32>
      firrtl.matchingconnect %dma_read_data, %dma_read_v : !firrtl.uint<32>
      firrtl.matchingconnect %read_1_data, %latch : !firrtl.uint<32>
      %dma_write_ok = firrtl.lt %dma_write_addr, %depth : (!firrtl.uint<2>, !firrtl.uint<3>) -> !firrtl.uint<1>
      %dma_write_go = firrtl.and %dma_write_enable, %dma_write_ok : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
      firrtl.when %dma_write_go : !firrtl.uint<1> {
        %dma_write_el = firrtl.subaccess %mem[%dma_write_addr] : !firrtl.vector<uint<32>, 4>, !firrtl.uint<2>
        firrtl.matchingconnect %dma_write_el, %dma_write_data : !firrtl.uint<32>
      }
    }
    firrtl.module @Bank_w32_d4_i2(in %clock: !firrtl.clock, in %reset: !firrtl.uint<1>, in %read0_enable: !firrtl.uint<1>, out %read0_ready: !firrtl.uint<1>, in %read0_addr: !firrtl.uint<2>, out %read0_data: !firrtl.uint<32>, out %read_1_ready: !firrtl.uint<1>, out %read_1_data: !firrtl.uint<32>, in %dma_read_enable: !firrtl.uint<1>, out %dma_read_ready: !firrtl.uint<1>, in %dma_read_addr: !firrtl.uint<2>, out %dma_read_data: !firrtl.uint<32>, in %dma_write_enable: !firrtl.uint<1>, out %dma_write_ready: !firrtl.uint<1>, in %dma_write_addr: !firrtl.uint<2>, in %dma_write_data: !firrtl.uint<32>) {
      %one = firrtl.constant 1 : !firrtl.uint<1>
      %zero = firrtl.constant 0 : !firrtl.uint<32>
      %depth = firrtl.constant 4 : !firrtl.uint<3>
      %init = firrtl.aggregateconstant [3, 7, 11, 15] : !firrtl.vector<uint<32>, 4>
      %mem = firrtl.regreset %clock, %reset, %init : !firrtl.clock, !firrtl.uint<1>, !firrtl.vector<uint<32>, 4>, !firrtl.vector<uint<32>, 4>
      %latch = firrtl.regreset %clock, %reset, %zero : !firrtl.clock, !firrtl.uint<1>, !firrtl.uint<32>, !firrtl.uint<32>
      firrtl.matchingconnect %read0_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %read_1_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %dma_read_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %dma_write_ready, %one : !firrtl.uint<1>
      %read0_ok = firrtl.lt %read0_addr, %depth : (!firrtl.uint<2>, !firrtl.uint<3>) -> !firrtl.uint<1>
      %read0_el = firrtl.subaccess %mem[%read0_addr] : !firrtl.vector<uint<32>, 4>, !firrtl.uint<2>
      %read0_v = firrtl.mux(%read0_ok, %read0_el, %zero) : (!firrtl.uint<1>, !firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<32>
      firrtl.matchingconnect %read0_data, %read0_v : !firrtl.uint<32>
      %dma_read_ok = firrtl.lt %dma_read_addr, %depth : (!firrtl.uint<2>, !firrtl.uint<3>) -> !firrtl.uint<1>
      %dma_read_el = firrtl.subaccess %mem[%dma_read_addr] : !firrtl.vector<uint<32>, 4>, !firrtl.uint<2>
      %dma_read_v = firrtl.mux(%dma_read_ok, %dma_read_el, %zero) : (!firrtl.uint<1>, !firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<32>
      firrtl.matchingconnect %dma_read_data, %dma_read_v : !firrtl.uint<32>
      firrtl.matchingconnect %read_1_data, %latch : !firrtl.uint<32>
      %dma_write_ok = firrtl.lt %dma_write_addr, %depth : (!firrtl.uint<2>, !firrtl.uint<3>) -> !firrtl.uint<1>
      %dma_write_go = firrtl.and %dma_write_enable, %dma_write_ok : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
      firrtl.when %dma_write_go : !firrtl.uint<1> {
        %dma_write_el = firrtl.subaccess %mem[%dma_write_addr] : !firrtl.vector<uint<32>, 4>, !firrtl.uint<2>
        firrtl.matchingconnect %dma_write_el, %dma_write_data : !firrtl.uint<32>
      }
    }
    firrtl.module @Bank_w32_d4_i3(in %clock: !firrtl.clock, in %reset: !firrtl.uint<1>, in %read0_enable: !firrtl.uint<1>, out %read0_ready: !firrtl.uint<1>, in %read0_addr: !firrtl.uint<2>, out %read0_data: !firrtl.uint<32>, out %read_1_ready: !firrtl.uint<1>, out %read_1_data: !firrtl.uint<32>, in %dma_read_enable: !firrtl.uint<1>, out %dma_read_ready: !firrtl.uint<1>, in %dma_read_addr: !firrtl.uint<2>, out %dma_read_data: !firrtl.uint<32>, in %dma_write_enable: !firrtl.uint<1>, out %dma_write_ready: !firrtl.uint<1>, in %dma_write_addr: !firrtl.uint<2>, in %dma_write_data: !firrtl.uint<32>) {
      %one = firrtl.constant 1 : !firrtl.uint<1>
      %zero = firrtl.constant 0 : !firrtl.uint<32>
      %depth = firrtl.constant 4 : !firrtl.uint<3>
      %init = firrtl.aggregateconstant [4, 8, 12, 16] : !firrtl.vector<uint<32>, 4>
      %mem = firrtl.regreset %clock, %reset, %init : !firrtl.clock, !firrtl.uint<1>, !firrtl.vector<uint<32>, 4>, !firrtl.vector<uint<32>, 4>
      %latch = firrtl.regreset %clock, %reset, %zero : !firrtl.clock, !firrtl.uint<1>, !firrtl.uint<32>, !firrtl.uint<32>
      firrtl.matchingconnect %read0_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %read_1_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %dma_read_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %dma_write_ready, %one : !firrtl.uint<1>
      %read0_ok = firrtl.lt %read0_addr, %depth : (!firrtl.uint<2>, !firrtl.uint<3>) -> !firrtl.uint<1>
      %read0_el = firrtl.subaccess %mem[%read0_addr] : !firrtl.vector<uint<32>, 4>, !firrtl.uint<2>
      %read0_v = firrtl.mux(%read0_ok, %read0_el, %zero) : (!firrtl.uint<1>, !firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<32>
      firrtl.matchingconnect %read0_data, %read0_v : !firrtl.uint<32>
      %dma_read_ok = firrtl.lt %dma_read_addr, %depth : (!firrtl.uint<2>, !firrtl.uint<3>) -> !firrtl.uint<1>
      %dma_read_el = firrtl.subaccess %mem[%dma_read_addr] : !firrtl.vector<uint<32>, 4>, !firrtl.uint<2>
      %dma_read_v = firrtl.mux(%dma_read_ok, %dma_read_el, %zero) : (!firrtl.uint<1>, !firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<32>
      firrtl.matchingconnect %dma_read_data, %dma_read_v : !firrtl.uint<32>
      firrtl.matchingconnect %read_1_data, %latch : !firrtl.uint<32>
      %dma_write_ok = firrtl.lt %dma_write_addr, %depth : (!firrtl.uint<2>, !firrtl.uint<3>) -> !firrtl.uint<1>
      %dma_write_go = firrtl.and %dma_write_enable, %dma_write_ok : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
      firrtl.when %dma_write_go : !firrtl.uint<1> {
        %dma_write_el = firrtl.subaccess %mem[%dma_write_addr] : !firrtl.vector<uint<32>, 4>, !firrtl.uint<2>
        firrtl.matchingconnect %dma_write_el, %dma_write_data : !firrtl.uint<32>
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
    firrtl.module @Reg_w4_i0(in %clock: !firrtl.clock, in %reset: !firrtl.uint<1>, out %read_ready: !firrtl.uint<1>, out %read_data: !firrtl.uint<4>, in %write_enable: !firrtl.uint<1>, out %write_ready: !firrtl.uint<1>, in %write_data: !firrtl.uint<4>) {
      %one = firrtl.constant 1 : !firrtl.uint<1>
      %init = firrtl.constant 0 : !firrtl.uint<4>
      %r = firrtl.regreset %clock, %reset, %init : !firrtl.clock, !firrtl.uint<1>, !firrtl.uint<4>, !firrtl.uint<4>
      firrtl.matchingconnect %read_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %write_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %read_data, %r : !firrtl.uint<4>
      firrtl.when %write_enable : !firrtl.uint<1> {
        firrtl.matchingconnect %r, %write_data : !firrtl.uint<4>
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
  }
}
