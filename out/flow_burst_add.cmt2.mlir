// kiln: rules for `flow_burst_add`
cmt2.circuit {
  cmt2.module.extern.firrtl @BurstDMAController : @BurstDMAController(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
    cmt2.bind.bare %clk, @clock : !firrtl.clock
    cmt2.bind.bare %rst, @reset : !firrtl.uint<1>
    cmt2.bind.method @cpu_to_isax : () -> ()[enable = "cpu_to_isax_enable", ready = "cpu_to_isax_ready", arguments = [], results = []]
    cmt2.bind.method @isax_to_cpu : () -> ()[enable = "isax_to_cpu_enable", ready = "isax_to_cpu_ready", arguments = [], results = []]
    cmt2.bind.value @poll_for_idle : () -> ()[enable = "poll_for_idle_enable", ready = "poll_for_idle_ready", arguments = [], results = []]
  }
  cmt2.module.extern.firrtl @FIFO1_PUSH_w1 : @FIFO1_PUSH_w1(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
    cmt2.bind.bare %clk, @clock : !firrtl.clock
    cmt2.bind.bare %rst, @reset : !firrtl.uint<1>
    cmt2.bind.method @enq : () -> ()[enable = "enq_enable", ready = "enq_ready", arguments = [], results = []]
    cmt2.bind.method @deq : () -> ()[enable = "deq_enable", ready = "deq_ready", arguments = [], results = []]
  }
  cmt2.module.extern.firrtl @FIFO1_PUSH_w32 : @FIFO1_PUSH_w32(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
    cmt2.bind.bare %clk, @clock : !firrtl.clock
    cmt2.bind.bare %rst, @reset : !firrtl.uint<1>
    cmt2.bind.method @enq : () -> ()[enable = "enq_enable", ready = "enq_ready", arguments = [], results = []]
    cmt2.bind.method @deq : () -> ()[enable = "deq_enable", ready = "deq_ready", arguments = [], results = []]
  }
  cmt2.module.extern.firrtl @Mem1r1w_w32_d4 : @Mem1r1w_w32_d4(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
    cmt2.bind.bare %clk, @clock : !firrtl.clock
    cmt2.bind.bare %rst, @reset : !firrtl.uint<1>
    cmt2.bind.value @read : () -> ()[enable = "read_enable", ready = "read_ready", arguments = [], results = []]
    cmt2.bind.method @read_0 : () -> ()[enable = "read_0_enable", ready = "read_0_ready", arguments = [], results = []]
    cmt2.bind.value @read_1 : () -> ()[enable = "read_1_enable", ready = "read_1_ready", arguments = [], results = []]
    cmt2.bind.method @write : () -> ()[enable = "write_enable", ready = "write_ready", arguments = [], results = []]
  }
  cmt2.module.extern.firrtl @MemoryTranslator : @MemoryTranslator(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
    cmt2.bind.bare %clk, @clock : !firrtl.clock
    cmt2.bind.bare %rst, @reset : !firrtl.uint<1>
    cmt2.bind.method @load_req : () -> ()[enable = "load_req_enable", ready = "load_req_ready", arguments = [], results = []]
    cmt2.bind.method @store_req : () -> ()[enable = "store_req_enable", ready = "store_req_ready", arguments = [], results = []]
    cmt2.bind.method @load_resp : () -> ()[enable = "load_resp_enable", ready = "load_resp_ready", arguments = [], results = []]
  }
  cmt2.module.extern.firrtl @Reg_width32_init0 : @Reg_width32_init0(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
    cmt2.bind.bare %clk, @clock : !firrtl.clock
    cmt2.bind.bare %rst, @reset : !firrtl.uint<1>
    cmt2.bind.value @read : () -> ()[enable = "read_enable", ready = "read_ready", arguments = [], results = []]
    cmt2.bind.method @write : () -> ()[enable = "write_enable", ready = "write_ready", arguments = [], results = []]
  }
  cmt2.module.extern.firrtl @Reg_width5_init0 : @Reg_width5_init0(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
    cmt2.bind.bare %clk, @clock : !firrtl.clock
    cmt2.bind.bare %rst, @reset : !firrtl.uint<1>
    cmt2.bind.value @read : () -> ()[enable = "read_enable", ready = "read_ready", arguments = [], results = []]
    cmt2.bind.method @write : () -> ()[enable = "write_enable", ready = "write_ready", arguments = [], results = []]
  }
  cmt2.module.extern.firrtl @RoCCAdapter : @RoCCAdapter(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
    cmt2.bind.bare %clk, @clock : !firrtl.clock
    cmt2.bind.bare %rst, @reset : !firrtl.uint<1>
    cmt2.bind.method @resp_from_user : () -> ()[enable = "resp_from_user_enable", ready = "resp_from_user_ready", arguments = [], results = []]
  }
  cmt2.module @main(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
    cmt2.instance @rocc_adapter = @RoCCAdapter(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @dma = @BurstDMAController(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @hellacache_adapter = @MemoryTranslator(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @mem_a_0 = @Mem1r1w_w32_d4(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @mem_a_1 = @Mem1r1w_w32_d4(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @mem_a_2 = @Mem1r1w_w32_d4(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @mem_a_3 = @Mem1r1w_w32_d4(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @mem_b_0 = @Mem1r1w_w32_d4(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @mem_b_1 = @Mem1r1w_w32_d4(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @mem_b_2 = @Mem1r1w_w32_d4(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @mem_b_3 = @Mem1r1w_w32_d4(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @mem_c_0 = @Mem1r1w_w32_d4(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @mem_c_1 = @Mem1r1w_w32_d4(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @mem_c_2 = @Mem1r1w_w32_d4(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @mem_c_3 = @Mem1r1w_w32_d4(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @reg_rd_43 = @Reg_width5_init0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @inst43_fifo_b0_b2_v0 = @FIFO1_PUSH_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @inst43_token_fifo_b0_b1 = @FIFO1_PUSH_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @inst43_token_fifo_b1_b2 = @FIFO1_PUSH_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @inst43_loop_1_loop_loop_to_body_fifo_0 = @FIFO1_PUSH_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @inst43_loop_1_loop_token_entry_to_body = @FIFO1_PUSH_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @inst43_loop_1_loop_token_body_to_next = @FIFO1_PUSH_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @inst43_loop_1_loop_dist_to_block0_fifo_v0 = @FIFO1_PUSH_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @inst43_loop_1_loop_dist_token_fifo = @FIFO1_PUSH_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @inst43_block_0_fifo_s0_s1_v0 = @FIFO1_PUSH_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @inst43_block_0_fifo_s0_s2_v0 = @FIFO1_PUSH_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @inst43_block_0_token_fifo_s0 = @FIFO1_PUSH_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @inst43_block_0_token_fifo_s1 = @FIFO1_PUSH_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @inst43_block_0_token_fifo_s2 = @FIFO1_PUSH_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @inst43_loop_1_loop_cur_reg = @Reg_width32_init0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @inst43_loop_1_loop_ub_reg = @Reg_width32_init0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @inst43_loop_1_loop_step_reg = @Reg_width32_init0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @inst43_block_2_token_fifo_s11 = @FIFO1_PUSH_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @inst43_loop_1_loop_block_0_fifo_s6_s7_v0 = @FIFO1_PUSH_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @inst43_loop_1_loop_block_0_fifo_s6_s7_v1 = @FIFO1_PUSH_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @inst43_loop_1_loop_block_0_fifo_s6_s7_v2 = @FIFO1_PUSH_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @inst43_loop_1_loop_block_0_fifo_s6_s7_v3 = @FIFO1_PUSH_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @inst43_loop_1_loop_block_0_fifo_s6_s7_v4 = @FIFO1_PUSH_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @inst43_loop_1_loop_block_0_fifo_s6_s7_v5 = @FIFO1_PUSH_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @inst43_loop_1_loop_block_0_fifo_s6_s7_v6 = @FIFO1_PUSH_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @inst43_loop_1_loop_block_0_fifo_s6_s7_v7 = @FIFO1_PUSH_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @inst43_loop_1_loop_block_0_fifo_s6_s7_v8 = @FIFO1_PUSH_w32(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.instance @inst43_loop_1_loop_block_0_token_fifo_s6 = @FIFO1_PUSH_w1(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []
    cmt2.rule @inst43_block_0_slot_0_rule () -> () {
      %c1_ui1 = firrtl.constant 1 : !firrtl.uint<1>
      cmt2.return %c1_ui1 : !firrtl.uint<1>
    } {
      %v0 = cmt2.call @rocc_adapter @cmd_to_user_43() : () -> !firrtl.uint<96>
      %v1 = firrtl.bits %v0 78 to 74 : (!firrtl.uint<96>) -> !firrtl.uint<5>
      cmt2.call @reg_rd_43 @write(%v1) : (!firrtl.uint<5>) -> ()
      %v2 = firrtl.bits %v0 63 to 32 : (!firrtl.uint<96>) -> !firrtl.uint<32>
      cmt2.call @inst43_block_0_fifo_s0_s1_v0 @enq(%v2) : (!firrtl.uint<32>) -> ()
      cmt2.call @inst43_fifo_b0_b2_v0 @enq(%v2) : (!firrtl.uint<32>) -> ()
      %v3 = firrtl.bits %v0 31 to 0 : (!firrtl.uint<96>) -> !firrtl.uint<32>
      cmt2.call @inst43_block_0_fifo_s0_s2_v0 @enq(%v3) : (!firrtl.uint<32>) -> ()
      %v4 = firrtl.constant 1 : !firrtl.uint<1>
      cmt2.call @inst43_block_0_token_fifo_s0 @enq(%v4) : (!firrtl.uint<1>) -> ()
      cmt2.return
    }
    cmt2.rule @inst43_block_0_slot_1_rule () -> () {
      %c1_ui1 = firrtl.constant 1 : !firrtl.uint<1>
      cmt2.return %c1_ui1 : !firrtl.uint<1>
    } {
      %v0 = cmt2.call @inst43_block_0_token_fifo_s0 @deq() : () -> !firrtl.uint<1>
      %v1 = cmt2.call @inst43_block_0_fifo_s0_s1_v0 @deq() : () -> !firrtl.uint<32>
      %v2 = firrtl.constant 0 : !firrtl.uint<32>
      %v3 = firrtl.constant 4 : !firrtl.uint<32>
      %v4_1 = firrtl.mul %v2, %v3 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<64>
      %v4 = firrtl.bits %v4_1 31 to 0 : (!firrtl.uint<64>) -> !firrtl.uint<32>
      %v5 = firrtl.constant 0 : !firrtl.uint<32>
      %v6_1 = firrtl.add %v5, %v4 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<33>
      %v6 = firrtl.bits %v6_1 31 to 0 : (!firrtl.uint<33>) -> !firrtl.uint<32>
      %v7 = firrtl.constant 6 : !firrtl.uint<4>
      cmt2.call @dma @cpu_to_isax(%v1, %v6, %v7) : (!firrtl.uint<32>, !firrtl.uint<32>, !firrtl.uint<4>) -> ()
      %v8 = firrtl.constant 1 : !firrtl.uint<1>
      cmt2.call @inst43_block_0_token_fifo_s1 @enq(%v8) : (!firrtl.uint<1>) -> ()
      cmt2.return
    }
    cmt2.rule @inst43_block_0_slot_2_rule () -> () {
      %c1_ui1 = firrtl.constant 1 : !firrtl.uint<1>
      cmt2.return %c1_ui1 : !firrtl.uint<1>
    } {
      %v0 = cmt2.call @inst43_block_0_token_fifo_s1 @deq() : () -> !firrtl.uint<1>
      %v1 = cmt2.call @dma @poll_for_idle() : () -> !firrtl.uint<1>
      %v2 = cmt2.call @inst43_block_0_fifo_s0_s2_v0 @deq() : () -> !firrtl.uint<32>
      %v3 = firrtl.constant 0 : !firrtl.uint<32>
      %v4 = firrtl.constant 4 : !firrtl.uint<32>
      %v5_1 = firrtl.mul %v3, %v4 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<64>
      %v5 = firrtl.bits %v5_1 31 to 0 : (!firrtl.uint<64>) -> !firrtl.uint<32>
      %v6 = firrtl.constant 64 : !firrtl.uint<32>
      %v7_1 = firrtl.add %v6, %v5 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<33>
      %v7 = firrtl.bits %v7_1 31 to 0 : (!firrtl.uint<33>) -> !firrtl.uint<32>
      %v8 = firrtl.constant 6 : !firrtl.uint<4>
      cmt2.call @dma @cpu_to_isax(%v2, %v7, %v8) : (!firrtl.uint<32>, !firrtl.uint<32>, !firrtl.uint<4>) -> ()
      %v9 = firrtl.constant 1 : !firrtl.uint<1>
      cmt2.call @inst43_block_0_token_fifo_s2 @enq(%v9) : (!firrtl.uint<1>) -> ()
      cmt2.return
    }
    cmt2.rule @inst43_block_0_slot_4_rule () -> () {
      %c1_ui1 = firrtl.constant 1 : !firrtl.uint<1>
      cmt2.return %c1_ui1 : !firrtl.uint<1>
    } {
      %v0 = cmt2.call @inst43_block_0_token_fifo_s2 @deq() : () -> !firrtl.uint<1>
      %v1 = cmt2.call @dma @poll_for_idle() : () -> !firrtl.uint<1>
      %v2 = firrtl.constant 1 : !firrtl.uint<1>
      cmt2.call @inst43_token_fifo_b0_b1 @enq(%v2) : (!firrtl.uint<1>) -> ()
      cmt2.return
    }
    cmt2.rule @inst43_loop_1_loop_entry_rule () -> () {
      %c1_ui1 = firrtl.constant 1 : !firrtl.uint<1>
      cmt2.return %c1_ui1 : !firrtl.uint<1>
    } {
      %v0 = cmt2.call @inst43_token_fifo_b0_b1 @deq() : () -> !firrtl.uint<1>
      %v1 = firrtl.constant 0 : !firrtl.uint<32>
      %v2 = firrtl.constant 3 : !firrtl.uint<32>
      %v3 = firrtl.constant 1 : !firrtl.uint<32>
      cmt2.call @inst43_loop_1_loop_cur_reg @write(%v1) : (!firrtl.uint<32>) -> ()
      cmt2.call @inst43_loop_1_loop_ub_reg @write(%v2) : (!firrtl.uint<32>) -> ()
      cmt2.call @inst43_loop_1_loop_step_reg @write(%v3) : (!firrtl.uint<32>) -> ()
      %v4 = firrtl.constant 0 : !firrtl.uint<32>
      %v5_1 = firrtl.asSInt %v3 : (!firrtl.uint<32>) -> !firrtl.sint<32>
      %v5_2 = firrtl.asSInt %v4 : (!firrtl.uint<32>) -> !firrtl.sint<32>
      %v5 = firrtl.lt %v5_1, %v5_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
      %v6_1 = firrtl.asSInt %v1 : (!firrtl.uint<32>) -> !firrtl.sint<32>
      %v6_2 = firrtl.asSInt %v2 : (!firrtl.uint<32>) -> !firrtl.sint<32>
      %v6 = firrtl.geq %v6_1, %v6_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
      %v7_1 = firrtl.asSInt %v1 : (!firrtl.uint<32>) -> !firrtl.sint<32>
      %v7_2 = firrtl.asSInt %v2 : (!firrtl.uint<32>) -> !firrtl.sint<32>
      %v7 = firrtl.leq %v7_1, %v7_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
      %v8_1 = firrtl.mux(%v5, %v6, %v7) : (!firrtl.uint<1>, !firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
      %v8 = firrtl.bits %v8_1 0 to 0 : (!firrtl.uint<1>) -> !firrtl.uint<1>
      cmt2.if %v8 {
        cmt2.call @inst43_loop_1_loop_loop_to_body_fifo_0 @enq(%v1) : (!firrtl.uint<32>) -> ()
        %v9 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @inst43_loop_1_loop_token_entry_to_body @enq(%v9) : (!firrtl.uint<1>) -> ()
      } else {
        %v10 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @inst43_token_fifo_b1_b2 @enq(%v10) : (!firrtl.uint<1>) -> ()
      }
      cmt2.return
    }
    cmt2.rule @inst43_loop_1_loop_next_rule () -> () {
      %c1_ui1 = firrtl.constant 1 : !firrtl.uint<1>
      cmt2.return %c1_ui1 : !firrtl.uint<1>
    } {
      %v0 = cmt2.call @inst43_loop_1_loop_token_body_to_next @deq() : () -> !firrtl.uint<1>
      %v1 = cmt2.call @inst43_loop_1_loop_cur_reg @read() : () -> !firrtl.uint<32>
      %v2 = cmt2.call @inst43_loop_1_loop_ub_reg @read() : () -> !firrtl.uint<32>
      %v3 = cmt2.call @inst43_loop_1_loop_step_reg @read() : () -> !firrtl.uint<32>
      %v4_1 = firrtl.add %v1, %v3 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<33>
      %v4 = firrtl.bits %v4_1 31 to 0 : (!firrtl.uint<33>) -> !firrtl.uint<32>
      %v5 = firrtl.constant 0 : !firrtl.uint<32>
      %v6_1 = firrtl.asSInt %v3 : (!firrtl.uint<32>) -> !firrtl.sint<32>
      %v6_2 = firrtl.asSInt %v5 : (!firrtl.uint<32>) -> !firrtl.sint<32>
      %v6 = firrtl.lt %v6_1, %v6_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
      %v7_1 = firrtl.asSInt %v4 : (!firrtl.uint<32>) -> !firrtl.sint<32>
      %v7_2 = firrtl.asSInt %v2 : (!firrtl.uint<32>) -> !firrtl.sint<32>
      %v7 = firrtl.geq %v7_1, %v7_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
      %v8_1 = firrtl.asSInt %v4 : (!firrtl.uint<32>) -> !firrtl.sint<32>
      %v8_2 = firrtl.asSInt %v2 : (!firrtl.uint<32>) -> !firrtl.sint<32>
      %v8 = firrtl.leq %v8_1, %v8_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
      %v9_1 = firrtl.mux(%v6, %v7, %v8) : (!firrtl.uint<1>, !firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
      %v9 = firrtl.bits %v9_1 0 to 0 : (!firrtl.uint<1>) -> !firrtl.uint<1>
      cmt2.if %v9 {
        cmt2.call @inst43_loop_1_loop_cur_reg @write(%v4) : (!firrtl.uint<32>) -> ()
      } else {
      }
      cmt2.if %v9 {
        cmt2.call @inst43_loop_1_loop_loop_to_body_fifo_0 @enq(%v4) : (!firrtl.uint<32>) -> ()
        %v10 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @inst43_loop_1_loop_token_entry_to_body @enq(%v10) : (!firrtl.uint<1>) -> ()
      } else {
        %v11 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.call @inst43_token_fifo_b1_b2 @enq(%v11) : (!firrtl.uint<1>) -> ()
      }
      cmt2.return
    }
    cmt2.rule @inst43_loop_1_loop_input_distribution () -> () {
      %c1_ui1 = firrtl.constant 1 : !firrtl.uint<1>
      cmt2.return %c1_ui1 : !firrtl.uint<1>
    } {
      %v0 = cmt2.call @inst43_loop_1_loop_token_entry_to_body @deq() : () -> !firrtl.uint<1>
      %v1 = cmt2.call @inst43_loop_1_loop_loop_to_body_fifo_0 @deq() : () -> !firrtl.uint<32>
      cmt2.call @inst43_loop_1_loop_dist_to_block0_fifo_v0 @enq(%v1) : (!firrtl.uint<32>) -> ()
      %v2 = firrtl.constant 1 : !firrtl.uint<1>
      cmt2.call @inst43_loop_1_loop_dist_token_fifo @enq(%v2) : (!firrtl.uint<1>) -> ()
      cmt2.return
    }
    cmt2.rule @inst43_block_2_slot_11_rule () -> () {
      %c1_ui1 = firrtl.constant 1 : !firrtl.uint<1>
      cmt2.return %c1_ui1 : !firrtl.uint<1>
    } {
      %v0 = cmt2.call @inst43_token_fifo_b1_b2 @deq() : () -> !firrtl.uint<1>
      %v1 = cmt2.call @inst43_fifo_b0_b2_v0 @deq() : () -> !firrtl.uint<32>
      %v2 = firrtl.constant 0 : !firrtl.uint<32>
      %v3 = firrtl.constant 4 : !firrtl.uint<32>
      %v4_1 = firrtl.mul %v2, %v3 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<64>
      %v4 = firrtl.bits %v4_1 31 to 0 : (!firrtl.uint<64>) -> !firrtl.uint<32>
      %v5 = firrtl.constant 128 : !firrtl.uint<32>
      %v6_1 = firrtl.add %v5, %v4 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<33>
      %v6 = firrtl.bits %v6_1 31 to 0 : (!firrtl.uint<33>) -> !firrtl.uint<32>
      %v7 = firrtl.constant 6 : !firrtl.uint<4>
      cmt2.call @dma @isax_to_cpu(%v1, %v6, %v7) : (!firrtl.uint<32>, !firrtl.uint<32>, !firrtl.uint<4>) -> ()
      %v8 = firrtl.constant 1 : !firrtl.uint<1>
      cmt2.call @inst43_block_2_token_fifo_s11 @enq(%v8) : (!firrtl.uint<1>) -> ()
      cmt2.return
    }
    cmt2.rule @inst43_block_2_slot_12_rule () -> () {
      %c1_ui1 = firrtl.constant 1 : !firrtl.uint<1>
      cmt2.return %c1_ui1 : !firrtl.uint<1>
    } {
      %v0 = cmt2.call @inst43_block_2_token_fifo_s11 @deq() : () -> !firrtl.uint<1>
      %v1 = cmt2.call @dma @poll_for_idle() : () -> !firrtl.uint<1>
      %v2 = firrtl.constant 42 : !firrtl.uint<32>
      %v3 = cmt2.call @reg_rd_43 @read() : () -> !firrtl.uint<5>
      cmt2.call @rocc_adapter @resp_from_user(%v3, %v2) : (!firrtl.uint<5>, !firrtl.uint<32>) -> ()
      cmt2.return
    }
    cmt2.rule @inst43_loop_1_loop_block_0_slot_6_rule () -> () {
      %c1_ui1 = firrtl.constant 1 : !firrtl.uint<1>
      cmt2.return %c1_ui1 : !firrtl.uint<1>
    } {
      %v0 = cmt2.call @inst43_loop_1_loop_dist_token_fifo @deq() : () -> !firrtl.uint<1>
      %v1 = cmt2.call @inst43_loop_1_loop_dist_to_block0_fifo_v0 @deq() : () -> !firrtl.uint<32>
      cmt2.call @inst43_loop_1_loop_block_0_fifo_s6_s7_v2 @enq(%v1) : (!firrtl.uint<32>) -> ()
      %v2 = cmt2.call @mem_a_0 @read(%v1) : (!firrtl.uint<32>) -> !firrtl.uint<32>
      cmt2.call @inst43_loop_1_loop_block_0_fifo_s6_s7_v0 @enq(%v2) : (!firrtl.uint<32>) -> ()
      %v3 = cmt2.call @mem_b_0 @read(%v1) : (!firrtl.uint<32>) -> !firrtl.uint<32>
      cmt2.call @inst43_loop_1_loop_block_0_fifo_s6_s7_v1 @enq(%v3) : (!firrtl.uint<32>) -> ()
      %v4 = cmt2.call @mem_a_1 @read(%v1) : (!firrtl.uint<32>) -> !firrtl.uint<32>
      cmt2.call @inst43_loop_1_loop_block_0_fifo_s6_s7_v3 @enq(%v4) : (!firrtl.uint<32>) -> ()
      %v5 = cmt2.call @mem_b_1 @read(%v1) : (!firrtl.uint<32>) -> !firrtl.uint<32>
      cmt2.call @inst43_loop_1_loop_block_0_fifo_s6_s7_v4 @enq(%v5) : (!firrtl.uint<32>) -> ()
      %v6 = cmt2.call @mem_a_2 @read(%v1) : (!firrtl.uint<32>) -> !firrtl.uint<32>
      cmt2.call @inst43_loop_1_loop_block_0_fifo_s6_s7_v5 @enq(%v6) : (!firrtl.uint<32>) -> ()
      %v7 = cmt2.call @mem_b_2 @read(%v1) : (!firrtl.uint<32>) -> !firrtl.uint<32>
      cmt2.call @inst43_loop_1_loop_block_0_fifo_s6_s7_v6 @enq(%v7) : (!firrtl.uint<32>) -> ()
      %v8 = cmt2.call @mem_a_3 @read(%v1) : (!firrtl.uint<32>) -> !firrtl.uint<32>
      cmt2.call @inst43_loop_1_loop_block_0_fifo_s6_s7_v7 @enq(%v8) : (!firrtl.uint<32>) -> ()
      %v9 = cmt2.call @mem_b_3 @read(%v1) : (!firrtl.uint<32>) -> !firrtl.uint<32>
      cmt2.call @inst43_loop_1_loop_block_0_fifo_s6_s7_v8 @enq(%v9) : (!firrtl.uint<32>) -> ()
      %v10 = firrtl.constant 1 : !firrtl.uint<1>
      cmt2.call @inst43_loop_1_loop_block_0_token_fifo_s6 @enq(%v10) : (!firrtl.uint<1>) -> ()
      cmt2.return
    }
    cmt2.rule @inst43_loop_1_loop_block_0_slot_7_rule () -> () {
      %c1_ui1 = firrtl.constant 1 : !firrtl.uint<1>
      cmt2.return %c1_ui1 : !firrtl.uint<1>
    } {
      %v0 = cmt2.call @inst43_loop_1_loop_block_0_token_fifo_s6 @deq() : () -> !firrtl.uint<1>
      %v1 = cmt2.call @inst43_loop_1_loop_block_0_fifo_s6_s7_v0 @deq() : () -> !firrtl.uint<32>
      %v2 = cmt2.call @inst43_loop_1_loop_block_0_fifo_s6_s7_v1 @deq() : () -> !firrtl.uint<32>
      %v3_1 = firrtl.add %v1, %v2 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<33>
      %v3 = firrtl.bits %v3_1 31 to 0 : (!firrtl.uint<33>) -> !firrtl.uint<32>
      %v4 = cmt2.call @inst43_loop_1_loop_block_0_fifo_s6_s7_v2 @deq() : () -> !firrtl.uint<32>
      cmt2.call @mem_c_0 @write(%v4, %v3) : (!firrtl.uint<32>, !firrtl.uint<32>) -> ()
      %v5 = cmt2.call @inst43_loop_1_loop_block_0_fifo_s6_s7_v3 @deq() : () -> !firrtl.uint<32>
      %v6 = cmt2.call @inst43_loop_1_loop_block_0_fifo_s6_s7_v4 @deq() : () -> !firrtl.uint<32>
      %v7_1 = firrtl.add %v5, %v6 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<33>
      %v7 = firrtl.bits %v7_1 31 to 0 : (!firrtl.uint<33>) -> !firrtl.uint<32>
      cmt2.call @mem_c_1 @write(%v4, %v7) : (!firrtl.uint<32>, !firrtl.uint<32>) -> ()
      %v8 = cmt2.call @inst43_loop_1_loop_block_0_fifo_s6_s7_v5 @deq() : () -> !firrtl.uint<32>
      %v9 = cmt2.call @inst43_loop_1_loop_block_0_fifo_s6_s7_v6 @deq() : () -> !firrtl.uint<32>
      %v10_1 = firrtl.add %v8, %v9 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<33>
      %v10 = firrtl.bits %v10_1 31 to 0 : (!firrtl.uint<33>) -> !firrtl.uint<32>
      cmt2.call @mem_c_2 @write(%v4, %v10) : (!firrtl.uint<32>, !firrtl.uint<32>) -> ()
      %v11 = cmt2.call @inst43_loop_1_loop_block_0_fifo_s6_s7_v7 @deq() : () -> !firrtl.uint<32>
      %v12 = cmt2.call @inst43_loop_1_loop_block_0_fifo_s6_s7_v8 @deq() : () -> !firrtl.uint<32>
      %v13_1 = firrtl.add %v11, %v12 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<33>
      %v13 = firrtl.bits %v13_1 31 to 0 : (!firrtl.uint<33>) -> !firrtl.uint<32>
      cmt2.call @mem_c_3 @write(%v4, %v13) : (!firrtl.uint<32>, !firrtl.uint<32>) -> ()
      %v14 = firrtl.constant 1 : !firrtl.uint<1>
      cmt2.call @inst43_loop_1_loop_token_body_to_next @enq(%v14) : (!firrtl.uint<1>) -> ()
      cmt2.return
    }
  } {precedence = [[@inst43_block_0_slot_1_rule, @inst43_block_0_slot_0_rule], [@inst43_block_0_slot_2_rule, @inst43_block_0_slot_0_rule], [@inst43_block_0_slot_4_rule, @inst43_block_0_slot_0_rule], [@inst43_block_0_slot_2_rule, @inst43_block_0_slot_1_rule], [@inst43_block_0_slot_4_rule, @inst43_block_0_slot_1_rule], [@inst43_block_0_slot_4_rule, @inst43_block_0_slot_2_rule], [@inst43_block_2_slot_12_rule, @inst43_block_2_slot_11_rule], [@inst43_loop_1_loop_block_0_slot_7_rule, @inst43_loop_1_loop_block_0_slot_6_rule]]}
}
