// kiln: rules for `step_runtime`
module {
  cmt2.circuit {
    cmt2.interface @RoccResp {
      cmt2.method @rocc_resp_to_bus(%result_rd: !firrtl.uint<5>, %result_rddata: !firrtl.uint<32>) -> () {
        cmt2.return
      } {
        cmt2.return
      }
    }
    cmt2.interface @BurstDMA {
      cmt2.method @cpu_to_isax_ch0(%cpu_addr: !firrtl.uint<32>, %isax_addr: !firrtl.uint<32>, %length: !firrtl.uint<4>, %stride_x: !firrtl.uint<8>, %stride_y: !firrtl.uint<8>) -> () {
        cmt2.return
      } {
        cmt2.return
      }
      cmt2.method @isax_to_cpu_ch0(%cpu_addr: !firrtl.uint<32>, %isax_addr: !firrtl.uint<32>, %length: !firrtl.uint<4>, %stride_x: !firrtl.uint<8>, %stride_y: !firrtl.uint<8>) -> () {
        cmt2.return
      } {
        cmt2.return
      }
      cmt2.value @poll_for_idle_ch0() -> (!firrtl.uint<1>) {
        cmt2.return
      } {
        cmt2.return
      }
      cmt2.method @cpu_to_isax_ch1(%cpu_addr: !firrtl.uint<32>, %isax_addr: !firrtl.uint<32>, %length: !firrtl.uint<4>, %stride_x: !firrtl.uint<8>, %stride_y: !firrtl.uint<8>) -> () {
        cmt2.return
      } {
        cmt2.return
      }
      cmt2.method @isax_to_cpu_ch1(%cpu_addr: !firrtl.uint<32>, %isax_addr: !firrtl.uint<32>, %length: !firrtl.uint<4>, %stride_x: !firrtl.uint<8>, %stride_y: !firrtl.uint<8>) -> () {
        cmt2.return
      } {
        cmt2.return
      }
      cmt2.value @poll_for_idle_ch1() -> (!firrtl.uint<1>) {
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
    cmt2.interface @Fault {
      cmt2.method @raise() -> () {
        cmt2.return
      } {
        cmt2.return
      }
    }
    cmt2.module.extern.firrtl @Reg_w2_i0 : @Reg_w2_i0(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
      cmt2.bind.bare %clk, @clock : !firrtl.clock
      cmt2.bind.bare %rst, @reset : !firrtl.uint<1>
      cmt2.bind.value @read : () -> !firrtl.uint<2> [ready = "read_ready", arguments = [], results = ["read_data"]]
      cmt2.bind.method @write : (!firrtl.uint<2>) -> () [enable = "write_enable", ready = "write_ready", arguments = ["write_data"], results = []]
    } {conflict = [[@write, @write]], sequenceBefore = [[@read, @write]]}
    cmt2.module.extern.firrtl @Reg_w32_i0 : @Reg_w32_i0(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
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
    cmt2.module.extern.firrtl @Reg_w64_i0 : @Reg_w64_i0(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
      cmt2.bind.bare %clk, @clock : !firrtl.clock
      cmt2.bind.bare %rst, @reset : !firrtl.uint<1>
      cmt2.bind.value @read : () -> !firrtl.uint<64> [ready = "read_ready", arguments = [], results = ["read_data"]]
      cmt2.bind.method @write : (!firrtl.uint<64>) -> () [enable = "write_enable", ready = "write_ready", arguments = ["write_data"], results = []]
    } {conflict = [[@write, @write]], sequenceBefore = [[@read, @write]]}
    cmt2.module.extern.firrtl @RoccCmd : @RoccCmd(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
      cmt2.bind.bare %clk, @clock : !firrtl.clock
      cmt2.bind.bare %rst, @reset : !firrtl.uint<1>
      cmt2.bind.method @enq : (!firrtl.uint<96>) -> () [enable = "enq_enable", ready = "enq_ready", arguments = ["enq_data"], results = []]
      cmt2.bind.value @cmd : () -> !firrtl.uint<96> [ready = "cmd_ready", arguments = [], results = ["cmd_data"]]
      cmt2.bind.method @cmd_deq : () -> !firrtl.uint<96> [enable = "cmd_deq_enable", ready = "cmd_deq_ready", arguments = [], results = ["cmd_deq_data"]]
    } {conflict = [[@enq, @enq], [@cmd_deq, @cmd_deq]], sequenceBefore = [[@cmd, @cmd_deq], [@cmd_deq, @enq]]}
    cmt2.module @main(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
      cmt2.instance @rocc_adapter = @RoccCmd(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.interface.decl @rocc_resp : @RoccResp
      cmt2.interface.decl @dma : @BurstDMA {kiln.memory_map = []}
      cmt2.instance @kiln_burst_q = @Reg_w64_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.interface.decl @hellacache_adapter : @MemPort
      cmt2.instance @inst7b04_pc = @Reg_w2_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst7b04_arg2 = @Reg_w5_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst7b04_block_0_reg0 = @Reg_w32_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.instance @inst7b04_loop_1_loop_iv = @Reg_w32_i0(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.interface.decl @inst7b04_loop_1_loop_step_zero : @Fault {kiln.message = "loop step is 0 at run time: the loop would never end"}
      cmt2.method @burst_write(%addr: !firrtl.uint<32>, %data: !firrtl.uint<64>) -> () {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        cmt2.return
      }
      cmt2.method @burst_read_0(%addr: !firrtl.uint<32>) -> () {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        %0 = firrtl.constant 0 : !firrtl.uint<64>
        cmt2.call @kiln_burst_q @write(%0) : (!firrtl.uint<64>) -> ()
        cmt2.return
      }
      cmt2.method @burst_read_1() -> (!firrtl.uint<64>) {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        %0 = cmt2.call @kiln_burst_q @read() : () -> !firrtl.uint<64>
        cmt2.return %0 : !firrtl.uint<64>
      }
      cmt2.method @rocc_cmd(%rocc_cmd_funct: !firrtl.uint<7>, %rocc_cmd_rs1: !firrtl.uint<5>, %rocc_cmd_rs2: !firrtl.uint<5>, %rocc_cmd_rd: !firrtl.uint<5>, %rocc_cmd_xs1: !firrtl.uint<1>, %rocc_cmd_xs2: !firrtl.uint<1>, %rocc_cmd_xd: !firrtl.uint<1>, %rocc_cmd_opcode: !firrtl.uint<7>, %rocc_cmd_rs1data: !firrtl.uint<32>, %rocc_cmd_rs2data: !firrtl.uint<32>) -> () {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        %0 = firrtl.cat %rocc_cmd_funct, %rocc_cmd_rs1 : (!firrtl.uint<7>, !firrtl.uint<5>) -> !firrtl.uint<12>
        %1 = firrtl.cat %0, %rocc_cmd_rs2 : (!firrtl.uint<12>, !firrtl.uint<5>) -> !firrtl.uint<17>
        %2 = firrtl.cat %1, %rocc_cmd_rd : (!firrtl.uint<17>, !firrtl.uint<5>) -> !firrtl.uint<22>
        %3 = firrtl.constant 0 : !firrtl.uint<1>
        %4 = firrtl.cat %2, %3 : (!firrtl.uint<22>, !firrtl.uint<1>) -> !firrtl.uint<23>
        %5 = firrtl.constant 0 : !firrtl.uint<1>
        %6 = firrtl.cat %4, %5 : (!firrtl.uint<23>, !firrtl.uint<1>) -> !firrtl.uint<24>
        %7 = firrtl.constant 0 : !firrtl.uint<1>
        %8 = firrtl.cat %6, %7 : (!firrtl.uint<24>, !firrtl.uint<1>) -> !firrtl.uint<25>
        %9 = firrtl.cat %8, %rocc_cmd_opcode : (!firrtl.uint<25>, !firrtl.uint<7>) -> !firrtl.uint<32>
        %10 = firrtl.cat %9, %rocc_cmd_rs1data : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<64>
        %11 = firrtl.cat %10, %rocc_cmd_rs2data : (!firrtl.uint<64>, !firrtl.uint<32>) -> !firrtl.uint<96>
        cmt2.call @rocc_adapter @enq(%11) : (!firrtl.uint<96>) -> ()
        cmt2.return
      }
      cmt2.rule @inst7b04_block_0_slot_0_rule() -> () attributes {kiln.origin = "inst7b04_block_0"} {
        %v0 = cmt2.call @inst7b04_pc @read() : () -> !firrtl.uint<2>
        %v1 = firrtl.constant 0 : !firrtl.uint<2>
        %v2 = firrtl.eq %v0, %v1 : (!firrtl.uint<2>, !firrtl.uint<2>) -> !firrtl.uint<1>
        %v3 = cmt2.call @rocc_adapter @cmd() : () -> !firrtl.uint<96>
        %v4 = firrtl.bits %v3 70 to 64 : (!firrtl.uint<96>) -> !firrtl.uint<7>
        %v5 = firrtl.constant 123 : !firrtl.uint<7>
        %v6 = firrtl.eq %v4, %v5 : (!firrtl.uint<7>, !firrtl.uint<7>) -> !firrtl.uint<1>
        %v7 = firrtl.and %v2, %v6 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        %v8 = firrtl.bits %v3 95 to 89 : (!firrtl.uint<96>) -> !firrtl.uint<7>
        %v9 = firrtl.constant 4 : !firrtl.uint<7>
        %v10 = firrtl.eq %v8, %v9 : (!firrtl.uint<7>, !firrtl.uint<7>) -> !firrtl.uint<1>
        %v11 = firrtl.and %v7, %v10 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        cmt2.return %v11 : !firrtl.uint<1>
      } {
        %v12 = cmt2.call @rocc_adapter @cmd_deq() : () -> !firrtl.uint<96>
        %v13 = firrtl.bits %v12 78 to 74 : (!firrtl.uint<96>) -> !firrtl.uint<5>
        cmt2.call @inst7b04_arg2 @write(%v13) : (!firrtl.uint<5>) -> ()
        %v14 = firrtl.bits %v12 63 to 32 : (!firrtl.uint<96>) -> !firrtl.uint<32>
        cmt2.call @inst7b04_block_0_reg0 @write(%v14) : (!firrtl.uint<32>) -> ()
        %v15 = firrtl.constant 0 : !firrtl.uint<32>
        %v16 = firrtl.constant 4 : !firrtl.uint<32>
        %v17 = firrtl.constant 0 : !firrtl.uint<32>
        %v18 = firrtl.eq %v14, %v17 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<1>
        cmt2.if %v18 : !firrtl.uint<1> {
          cmt2.call @inst7b04_loop_1_loop_step_zero @raise() : () -> ()
          cmt2.yield
        }
        %v19 = firrtl.constant 0 : !firrtl.uint<32>
        %v20_1 = firrtl.asSInt %v14 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v20_2 = firrtl.asSInt %v19 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v20 = firrtl.lt %v20_1, %v20_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v21_1 = firrtl.asSInt %v15 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v21_2 = firrtl.asSInt %v16 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v21 = firrtl.geq %v21_1, %v21_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v22_1 = firrtl.asSInt %v15 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v22_2 = firrtl.asSInt %v16 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v22 = firrtl.leq %v22_1, %v22_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v23 = firrtl.mux(%v20, %v21, %v22) : (!firrtl.uint<1>, !firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        %v24 = firrtl.constant 0 : !firrtl.uint<1>
        %v25 = firrtl.eq %v23, %v24 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        %v26_1 = firrtl.add %v15, %v14 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<33>
        %v26 = firrtl.bits %v26_1 31 to 0 : (!firrtl.uint<33>) -> !firrtl.uint<32>
        %v27 = firrtl.constant 0 : !firrtl.uint<32>
        %v28_1 = firrtl.asSInt %v14 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v28_2 = firrtl.asSInt %v27 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v28 = firrtl.lt %v28_1, %v28_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v29_1 = firrtl.asSInt %v26 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v29_2 = firrtl.asSInt %v16 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v29 = firrtl.geq %v29_1, %v29_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v30_1 = firrtl.asSInt %v26 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v30_2 = firrtl.asSInt %v16 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v30 = firrtl.leq %v30_1, %v30_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v31 = firrtl.mux(%v28, %v29, %v30) : (!firrtl.uint<1>, !firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        %v32 = firrtl.xor %v15, %v26 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<32>
        %v33 = firrtl.xor %v14, %v26 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<32>
        %v34 = firrtl.and %v32, %v33 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<32>
        %v35 = firrtl.bits %v34 31 to 31 : (!firrtl.uint<32>) -> !firrtl.uint<1>
        %v36 = firrtl.constant 0 : !firrtl.uint<1>
        %v37 = firrtl.eq %v35, %v36 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        %v38 = firrtl.and %v31, %v37 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        %v39 = firrtl.and %v23, %v38 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        %v40 = firrtl.constant 0 : !firrtl.uint<1>
        %v41 = firrtl.eq %v38, %v40 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        %v42 = firrtl.and %v23, %v41 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        %v43 = firrtl.constant 2 : !firrtl.uint<2>
        %v44 = firrtl.constant 1 : !firrtl.uint<2>
        %v45 = firrtl.constant 1 : !firrtl.uint<2>
        %v46 = firrtl.mux(%v42, %v26, %v15) : (!firrtl.uint<1>, !firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<32>
        %v47 = firrtl.mux(%v39, %v26, %v46) : (!firrtl.uint<1>, !firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<32>
        cmt2.call @inst7b04_loop_1_loop_iv @write(%v47) : (!firrtl.uint<32>) -> ()
        %v48 = firrtl.mux(%v42, %v44, %v45) : (!firrtl.uint<1>, !firrtl.uint<2>, !firrtl.uint<2>) -> !firrtl.uint<2>
        %v49 = firrtl.mux(%v39, %v43, %v48) : (!firrtl.uint<1>, !firrtl.uint<2>, !firrtl.uint<2>) -> !firrtl.uint<2>
        cmt2.call @inst7b04_pc @write(%v49) : (!firrtl.uint<2>) -> ()
        cmt2.return
      }
      cmt2.rule @inst7b04_loop_1_loop_head_rule() -> () attributes {kiln.origin = "inst7b04_loop_1"} {
        %v0 = cmt2.call @inst7b04_pc @read() : () -> !firrtl.uint<2>
        %v1 = firrtl.constant 2 : !firrtl.uint<2>
        %v2 = firrtl.eq %v0, %v1 : (!firrtl.uint<2>, !firrtl.uint<2>) -> !firrtl.uint<1>
        cmt2.return %v2 : !firrtl.uint<1>
      } {
        %v3 = cmt2.call @inst7b04_loop_1_loop_iv @read() : () -> !firrtl.uint<32>
        %v4 = firrtl.constant 4 : !firrtl.uint<32>
        %v5 = cmt2.call @inst7b04_block_0_reg0 @read() : () -> !firrtl.uint<32>
        %v6_1 = firrtl.add %v3, %v5 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<33>
        %v6 = firrtl.bits %v6_1 31 to 0 : (!firrtl.uint<33>) -> !firrtl.uint<32>
        %v7 = firrtl.constant 0 : !firrtl.uint<32>
        %v8_1 = firrtl.asSInt %v5 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v8_2 = firrtl.asSInt %v7 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v8 = firrtl.lt %v8_1, %v8_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v9_1 = firrtl.asSInt %v6 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v9_2 = firrtl.asSInt %v4 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v9 = firrtl.geq %v9_1, %v9_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v10_1 = firrtl.asSInt %v6 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v10_2 = firrtl.asSInt %v4 : (!firrtl.uint<32>) -> !firrtl.sint<32>
        %v10 = firrtl.leq %v10_1, %v10_2 : (!firrtl.sint<32>, !firrtl.sint<32>) -> !firrtl.uint<1>
        %v11 = firrtl.mux(%v8, %v9, %v10) : (!firrtl.uint<1>, !firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        %v12 = firrtl.xor %v3, %v6 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<32>
        %v13 = firrtl.xor %v5, %v6 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<32>
        %v14 = firrtl.and %v12, %v13 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<32>
        %v15 = firrtl.bits %v14 31 to 31 : (!firrtl.uint<32>) -> !firrtl.uint<1>
        %v16 = firrtl.constant 0 : !firrtl.uint<1>
        %v17 = firrtl.eq %v15, %v16 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        %v18 = firrtl.and %v11, %v17 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        %v19 = firrtl.constant 0 : !firrtl.uint<1>
        %v20 = firrtl.eq %v18, %v19 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
        %v21 = firrtl.constant 2 : !firrtl.uint<2>
        %v22 = firrtl.constant 1 : !firrtl.uint<2>
        cmt2.call @inst7b04_loop_1_loop_iv @write(%v6) : (!firrtl.uint<32>) -> ()
        %v23 = firrtl.mux(%v18, %v21, %v22) : (!firrtl.uint<1>, !firrtl.uint<2>, !firrtl.uint<2>) -> !firrtl.uint<2>
        cmt2.call @inst7b04_pc @write(%v23) : (!firrtl.uint<2>) -> ()
        cmt2.return
      }
      cmt2.rule @inst7b04_block_2_slot_3_rule() -> () attributes {kiln.origin = "inst7b04_block_2"} {
        %v0 = cmt2.call @inst7b04_pc @read() : () -> !firrtl.uint<2>
        %v1 = firrtl.constant 1 : !firrtl.uint<2>
        %v2 = firrtl.eq %v0, %v1 : (!firrtl.uint<2>, !firrtl.uint<2>) -> !firrtl.uint<1>
        cmt2.return %v2 : !firrtl.uint<1>
      } {
        %v3 = cmt2.call @inst7b04_block_0_reg0 @read() : () -> !firrtl.uint<32>
        %v4 = cmt2.call @inst7b04_arg2 @read() : () -> !firrtl.uint<5>
        cmt2.call @rocc_resp @rocc_resp_to_bus(%v4, %v3) : (!firrtl.uint<5>, !firrtl.uint<32>) -> ()
        %v5 = firrtl.constant 0 : !firrtl.uint<2>
        cmt2.call @inst7b04_pc @write(%v5) : (!firrtl.uint<2>) -> ()
        cmt2.return
      }
    } {kiln.circuit = "step_runtime", kiln.instructions = [{function = "s", funct7 = 4 : i32, opcode = 123 : i32}], precedence = [[@inst7b04_block_2_slot_3_rule, @inst7b04_loop_1_loop_head_rule], [@inst7b04_loop_1_loop_head_rule, @inst7b04_block_0_slot_0_rule]]}
  }
  firrtl.circuit "Reg_w2_i0" {
    firrtl.module @Reg_w2_i0(in %clock: !firrtl.clock, in %reset: !firrtl.uint<1>, out %read_ready: !firrtl.uint<1>, out %read_data: !firrtl.uint<2>, in %write_enable: !firrtl.uint<1>, out %write_ready: !firrtl.uint<1>, in %write_data: !firrtl.uint<2>) {
      %one = firrtl.constant 1 : !firrtl.uint<1>
      %init = firrtl.constant 0 : !firrtl.uint<2>
      %r = firrtl.regreset %clock, %reset, %init : !firrtl.clock, !firrtl.uint<1>, !firrtl.uint<2>, !firrtl.uint<2>
      firrtl.matchingconnect %read_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %write_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %read_data, %r : !firrtl.uint<2>
      firrtl.when %write_enable : !firrtl.uint<1> {
        firrtl.matchingconnect %r, %write_data : !firrtl.uint<2>
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
    firrtl.module @Reg_w64_i0(in %clock: !firrtl.clock, in %reset: !firrtl.uint<1>, out %read_ready: !firrtl.uint<1>, out %read_data: !firrtl.uint<64>, in %write_enable: !firrtl.uint<1>, out %write_ready: !firrtl.uint<1>, in %write_data: !firrtl.uint<64>) {
      %one = firrtl.constant 1 : !firrtl.uint<1>
      %init = firrtl.constant 0 : !firrtl.uint<64>
      %r = firrtl.regreset %clock, %reset, %init : !firrtl.clock, !firrtl.uint<1>, !firrtl.uint<64>, !firrtl.uint<64>
      firrtl.matchingconnect %read_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %write_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %read_data, %r : !firrtl.uint<64>
      firrtl.when %write_enable : !firrtl.uint<1> {
        firrtl.matchingconnect %r, %write_data : !firrtl.uint<64>
      }
    }
    firrtl.module @RoccCmd(in %clock: !firrtl.clock, in %reset: !firrtl.uint<1>, in %enq_enable: !firrtl.uint<1>, out %enq_ready: !firrtl.uint<1>, in %enq_data: !firrtl.uint<96>, out %cmd_ready: !firrtl.uint<1>, out %cmd_data: !firrtl.uint<96>, in %cmd_deq_enable: !firrtl.uint<1>, out %cmd_deq_ready: !firrtl.uint<1>, out %cmd_deq_data: !firrtl.uint<96>) {
      %zero = firrtl.constant 0 : !firrtl.uint<1>
      %one = firrtl.constant 1 : !firrtl.uint<1>
      %none = firrtl.constant 0 : !firrtl.uint<96>
      %valid = firrtl.regreset %clock, %reset, %zero : !firrtl.clock, !firrtl.uint<1>, !firrtl.uint<1>, !firrtl.uint<1>
      %data = firrtl.regreset %clock, %reset, %none : !firrtl.clock, !firrtl.uint<1>, !firrtl.uint<96>, !firrtl.uint<96>
      %taken = firrtl.not %cmd_deq_enable : (!firrtl.uint<1>) -> !firrtl.uint<1>
      %free = firrtl.not %valid : (!firrtl.uint<1>) -> !firrtl.uint<1>
      %held = firrtl.and %valid, %taken : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
      %room = firrtl.or %free, %cmd_deq_enable : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
      firrtl.matchingconnect %cmd_ready, %held : !firrtl.uint<1>
      firrtl.matchingconnect %cmd_data, %data : !firrtl.uint<96>
      firrtl.matchingconnect %cmd_deq_ready, %valid : !firrtl.uint<1>
      firrtl.matchingconnect %cmd_deq_data, %data : !firrtl.uint<96>
      firrtl.matchingconnect %enq_ready, %room : !firrtl.uint<1>
      firrtl.when %cmd_deq_enable : !firrtl.uint<1> {
        firrtl.matchingconnect %valid, %zero : !firrtl.uint<1>
      }
      firrtl.when %enq_enable : !firrtl.uint<1> {
        firrtl.matchingconnect %valid, %one : !firrtl.uint<1>
        firrtl.matchingconnect %data, %enq_data : !firrtl.uint<96>
      }
    }
  }
}
