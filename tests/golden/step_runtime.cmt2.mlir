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
    cmt2.interface @HellaCmd {
      cmt2.method @hella_cmd_to_bus(%cmd_addr: !firrtl.uint<32>, %cmd_tag: !firrtl.uint<8>, %cmd_cmd: !firrtl.uint<5>, %cmd_size: !firrtl.uint<2>, %cmd_signed: !firrtl.uint<1>, %cmd_phys: !firrtl.uint<1>, %cmd_data: !firrtl.uint<32>, %cmd_mask: !firrtl.uint<4>) -> () {
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
    cmt2.interface @Fault {
      cmt2.method @raise() -> () {
        cmt2.return
      } {
        cmt2.return
      }
    }
    cmt2.module.extern.firrtl @HellaMem : @HellaMem(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {
      cmt2.bind.bare %clk, @clock : !firrtl.clock
      cmt2.bind.bare %rst, @reset : !firrtl.uint<1>
      cmt2.bind.value @head : () -> !firrtl.uint<73> [ready = "head_ready", arguments = [], results = ["head_data"]]
      cmt2.bind.method @deq : () -> () [enable = "deq_enable", ready = "deq_ready", arguments = [], results = []]
      cmt2.bind.value @first : () -> !firrtl.uint<73> [ready = "first_ready", arguments = [], results = ["first_data"]]
      cmt2.bind.method @bypass : () -> () [enable = "bypass_enable", ready = "bypass_ready", arguments = [], results = []]
      cmt2.bind.method @resp : (!firrtl.uint<32>, !firrtl.uint<8>, !firrtl.uint<5>, !firrtl.uint<2>, !firrtl.uint<1>) -> () [enable = "resp_enable", ready = "resp_ready", arguments = ["resp_data", "resp_tag", "resp_cmd", "resp_size", "resp_signed"], results = []]
    } {conflict = [[@deq, @deq], [@bypass, @bypass], [@resp, @resp]], sequenceBefore = [[@head, @deq], [@first, @bypass]]}
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
      cmt2.instance @hellacache_adapter = @HellaMem(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>
      cmt2.interface.decl @hella_cmd : @HellaCmd
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
      cmt2.method @hella_resp(%hella_resp_data: !firrtl.uint<32>, %hella_resp_tag: !firrtl.uint<8>, %hella_resp_cmd: !firrtl.uint<5>, %hella_resp_size: !firrtl.uint<2>, %hella_resp_signed: !firrtl.uint<1>) -> () {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        cmt2.call @hellacache_adapter @resp(%hella_resp_data, %hella_resp_tag, %hella_resp_cmd, %hella_resp_size, %hella_resp_signed) : (!firrtl.uint<32>, !firrtl.uint<8>, !firrtl.uint<5>, !firrtl.uint<2>, !firrtl.uint<1>) -> ()
        cmt2.return
      }
      cmt2.rule @hella_send() -> () {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        %0 = cmt2.call @hellacache_adapter @head() : () -> !firrtl.uint<73>
        %1 = firrtl.bits %0 63 to 34 : (!firrtl.uint<73>) -> !firrtl.uint<30>
        %2 = firrtl.constant 0 : !firrtl.uint<2>
        %3 = firrtl.cat %1, %2 : (!firrtl.uint<30>, !firrtl.uint<2>) -> !firrtl.uint<32>
        %4 = firrtl.bits %0 71 to 64 : (!firrtl.uint<73>) -> !firrtl.uint<8>
        %5 = firrtl.bits %0 72 to 72 : (!firrtl.uint<73>) -> !firrtl.uint<1>
        %6 = firrtl.pad %5, 5 : (!firrtl.uint<1>) -> !firrtl.uint<5>
        %7 = firrtl.constant 2 : !firrtl.uint<2>
        %8 = firrtl.constant 0 : !firrtl.uint<1>
        %9 = firrtl.bits %0 31 to 0 : (!firrtl.uint<73>) -> !firrtl.uint<32>
        %10 = firrtl.cat %5, %5 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<2>
        %11 = firrtl.cat %10, %10 : (!firrtl.uint<2>, !firrtl.uint<2>) -> !firrtl.uint<4>
        cmt2.call @hella_cmd @hella_cmd_to_bus(%3, %4, %6, %7, %8, %8, %9, %11) : (!firrtl.uint<32>, !firrtl.uint<8>, !firrtl.uint<5>, !firrtl.uint<2>, !firrtl.uint<1>, !firrtl.uint<1>, !firrtl.uint<32>, !firrtl.uint<4>) -> ()
        cmt2.call @hellacache_adapter @deq() : () -> ()
        cmt2.return
      }
      cmt2.rule @hella_bypass() -> () {
        %0 = firrtl.constant 1 : !firrtl.uint<1>
        cmt2.return %0 : !firrtl.uint<1>
      } {
        %0 = cmt2.call @hellacache_adapter @first() : () -> !firrtl.uint<73>
        %1 = firrtl.bits %0 63 to 34 : (!firrtl.uint<73>) -> !firrtl.uint<30>
        %2 = firrtl.constant 0 : !firrtl.uint<2>
        %3 = firrtl.cat %1, %2 : (!firrtl.uint<30>, !firrtl.uint<2>) -> !firrtl.uint<32>
        %4 = firrtl.bits %0 71 to 64 : (!firrtl.uint<73>) -> !firrtl.uint<8>
        %5 = firrtl.bits %0 72 to 72 : (!firrtl.uint<73>) -> !firrtl.uint<1>
        %6 = firrtl.pad %5, 5 : (!firrtl.uint<1>) -> !firrtl.uint<5>
        %7 = firrtl.constant 2 : !firrtl.uint<2>
        %8 = firrtl.constant 0 : !firrtl.uint<1>
        %9 = firrtl.bits %0 31 to 0 : (!firrtl.uint<73>) -> !firrtl.uint<32>
        %10 = firrtl.cat %5, %5 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<2>
        %11 = firrtl.cat %10, %10 : (!firrtl.uint<2>, !firrtl.uint<2>) -> !firrtl.uint<4>
        cmt2.call @hella_cmd @hella_cmd_to_bus(%3, %4, %6, %7, %8, %8, %9, %11) : (!firrtl.uint<32>, !firrtl.uint<8>, !firrtl.uint<5>, !firrtl.uint<2>, !firrtl.uint<1>, !firrtl.uint<1>, !firrtl.uint<32>, !firrtl.uint<4>) -> ()
        cmt2.call @hellacache_adapter @bypass() : () -> ()
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
    } {kiln.circuit = "step_runtime", kiln.instructions = [{function = "s", funct7 = 4 : i32, opcode = 123 : i32}], precedence = [[@hella_send, @inst7b04_block_2_slot_3_rule], [@inst7b04_block_2_slot_3_rule, @inst7b04_loop_1_loop_head_rule], [@inst7b04_loop_1_loop_head_rule, @inst7b04_block_0_slot_0_rule], [@inst7b04_block_0_slot_0_rule, @hella_bypass]]}
  }
  firrtl.circuit "HellaMem" {
    firrtl.module @HellaMem(in %clock: !firrtl.clock, in %reset: !firrtl.uint<1>, out %head_ready: !firrtl.uint<1>, out %head_data: !firrtl.uint<73>, in %deq_enable: !firrtl.uint<1>, out %deq_ready: !firrtl.uint<1>, out %first_ready: !firrtl.uint<1>, out %first_data: !firrtl.uint<73>, in %bypass_enable: !firrtl.uint<1>, out %bypass_ready: !firrtl.uint<1>, in %resp_enable: !firrtl.uint<1>, out %resp_ready: !firrtl.uint<1>, in %resp_data: !firrtl.uint<32>, in %resp_tag: !firrtl.uint<8>, in %resp_cmd: !firrtl.uint<5>, in %resp_size: !firrtl.uint<2>, in %resp_signed: !firrtl.uint<1>) {
      %one = firrtl.constant 1 : !firrtl.uint<1>
      %off = firrtl.constant 0 : !firrtl.uint<1>
      %c0 = firrtl.constant 0 : !firrtl.uint<16>
      %lanes = firrtl.constant 1 : !firrtl.uint<16>
      %depth = firrtl.constant 2 : !firrtl.uint<16>
      %size = firrtl.constant 4 : !firrtl.uint<16>
      %q0 = firrtl.aggregateconstant [0, 0] : !firrtl.vector<uint<73>, 2>
      %v0 = firrtl.aggregateconstant [0, 0, 0, 0] : !firrtl.vector<uint<1>, 4>
      %d0 = firrtl.aggregateconstant [0, 0, 0, 0] : !firrtl.vector<uint<32>, 4>
      %q = firrtl.regreset %clock, %reset, %q0 : !firrtl.clock, !firrtl.uint<1>, !firrtl.vector<uint<73>, 2>, !firrtl.vector<uint<73>, 2>
      %cnt = firrtl.regreset %clock, %reset, %c0 : !firrtl.clock, !firrtl.uint<1>, !firrtl.uint<16>, !firrtl.uint<16>
      %rb_valid = firrtl.regreset %clock, %reset, %v0 : !firrtl.clock, !firrtl.uint<1>, !firrtl.vector<uint<1>, 4>, !firrtl.vector<uint<1>, 4>
      %rb_data = firrtl.regreset %clock, %reset, %d0 : !firrtl.clock, !firrtl.uint<1>, !firrtl.vector<uint<32>, 4>, !firrtl.vector<uint<32>, 4>
      %head = firrtl.regreset %clock, %reset, %c0 : !firrtl.clock, !firrtl.uint<1>, !firrtl.uint<16>, !firrtl.uint<16>
      %alloc = firrtl.regreset %clock, %reset, %c0 : !firrtl.clock, !firrtl.uint<1>, !firrtl.uint<16>, !firrtl.uint<16>
      %used = firrtl.regreset %clock, %reset, %c0 : !firrtl.clock, !firrtl.uint<1>, !firrtl.uint<16>, !firrtl.uint<16>
      %t0 = firrtl.neq %cnt, %c0 : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<1>
      %t1 = firrtl.subindex %q[0] : !firrtl.vector<uint<73>, 2>
      firrtl.matchingconnect %head_ready, %t0 : !firrtl.uint<1>
      firrtl.matchingconnect %head_data, %t1 : !firrtl.uint<73>
      firrtl.matchingconnect %deq_ready, %t0 : !firrtl.uint<1>
      %t2 = firrtl.pad %deq_enable, 16 : (!firrtl.uint<1>) -> !firrtl.uint<16>
      %t3 = firrtl.sub %cnt, %t2 : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<17>
      %t4 = firrtl.bits %t3 15 to 0 : (!firrtl.uint<17>) -> !firrtl.uint<16>
      %t5 = firrtl.constant 0 : !firrtl.uint<5>
      %t6 = firrtl.eq %resp_cmd, %t5 : (!firrtl.uint<5>, !firrtl.uint<5>) -> !firrtl.uint<1>
      %t7 = firrtl.and %resp_enable, %t6 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
      %t8 = firrtl.pad %resp_tag, 16 : (!firrtl.uint<8>) -> !firrtl.uint<16>
      firrtl.matchingconnect %resp_ready, %one : !firrtl.uint<1>
      %t9 = firrtl.constant 0 : !firrtl.uint<73>
      %t10 = firrtl.not %t0 : (!firrtl.uint<1>) -> !firrtl.uint<1>
      %t11 = firrtl.neq %c0, %c0 : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<1>
      %t12 = firrtl.and %t10, %t11 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
      firrtl.matchingconnect %first_ready, %t12 : !firrtl.uint<1>
      firrtl.matchingconnect %first_data, %t9 : !firrtl.uint<73>
      firrtl.matchingconnect %bypass_ready, %t12 : !firrtl.uint<1>
      %t13 = firrtl.pad %bypass_enable, 16 : (!firrtl.uint<1>) -> !firrtl.uint<16>
      %t14 = firrtl.add %t4, %c0 : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<17>
      %t15 = firrtl.bits %t14 15 to 0 : (!firrtl.uint<17>) -> !firrtl.uint<16>
      %t16 = firrtl.sub %t15, %t13 : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<17>
      %t17 = firrtl.bits %t16 15 to 0 : (!firrtl.uint<17>) -> !firrtl.uint<16>
      firrtl.matchingconnect %cnt, %t17 : !firrtl.uint<16>
      firrtl.when %deq_enable : !firrtl.uint<1> {
        %s0 = firrtl.subindex %q[0] : !firrtl.vector<uint<73>, 2>
        %n0 = firrtl.subindex %q[1] : !firrtl.vector<uint<73>, 2>
        firrtl.matchingconnect %s0, %n0 : !firrtl.uint<73>
      }
      %t18 = firrtl.lt %t8, %size : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<1>
      %t19 = firrtl.and %t7, %t18 : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
      firrtl.when %t19 : !firrtl.uint<1> {
        %rv = firrtl.subaccess %rb_valid[%t8] : !firrtl.vector<uint<1>, 4>, !firrtl.uint<16>
        firrtl.matchingconnect %rv, %one : !firrtl.uint<1>
        %rd = firrtl.subaccess %rb_data[%t8] : !firrtl.vector<uint<32>, 4>, !firrtl.uint<16>
        firrtl.matchingconnect %rd, %resp_data : !firrtl.uint<32>
      }
      %t20 = firrtl.constant 4 : !firrtl.uint<16>
      %t21 = firrtl.sub %t20, %head : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<17>
      %t22 = firrtl.bits %t21 15 to 0 : (!firrtl.uint<17>) -> !firrtl.uint<16>
      %t23 = firrtl.add %t22, %c0 : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<17>
      %t24 = firrtl.bits %t23 15 to 0 : (!firrtl.uint<17>) -> !firrtl.uint<16>
      %t25 = firrtl.geq %t24, %size : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<1>
      %t26 = firrtl.sub %t24, %size : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<17>
      %t27 = firrtl.bits %t26 15 to 0 : (!firrtl.uint<17>) -> !firrtl.uint<16>
      %t28 = firrtl.mux(%t25, %t27, %t24) : (!firrtl.uint<1>, !firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<16>
      %t29 = firrtl.lt %t28, %c0 : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<1>
      firrtl.when %t29 : !firrtl.uint<1> {
        %x0 = firrtl.subindex %rb_valid[0] : !firrtl.vector<uint<1>, 4>
        firrtl.matchingconnect %x0, %off : !firrtl.uint<1>
      }
      %t30 = firrtl.constant 5 : !firrtl.uint<16>
      %t31 = firrtl.sub %t30, %head : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<17>
      %t32 = firrtl.bits %t31 15 to 0 : (!firrtl.uint<17>) -> !firrtl.uint<16>
      %t33 = firrtl.add %t32, %c0 : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<17>
      %t34 = firrtl.bits %t33 15 to 0 : (!firrtl.uint<17>) -> !firrtl.uint<16>
      %t35 = firrtl.geq %t34, %size : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<1>
      %t36 = firrtl.sub %t34, %size : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<17>
      %t37 = firrtl.bits %t36 15 to 0 : (!firrtl.uint<17>) -> !firrtl.uint<16>
      %t38 = firrtl.mux(%t35, %t37, %t34) : (!firrtl.uint<1>, !firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<16>
      %t39 = firrtl.lt %t38, %c0 : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<1>
      firrtl.when %t39 : !firrtl.uint<1> {
        %x1 = firrtl.subindex %rb_valid[1] : !firrtl.vector<uint<1>, 4>
        firrtl.matchingconnect %x1, %off : !firrtl.uint<1>
      }
      %t40 = firrtl.constant 6 : !firrtl.uint<16>
      %t41 = firrtl.sub %t40, %head : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<17>
      %t42 = firrtl.bits %t41 15 to 0 : (!firrtl.uint<17>) -> !firrtl.uint<16>
      %t43 = firrtl.add %t42, %c0 : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<17>
      %t44 = firrtl.bits %t43 15 to 0 : (!firrtl.uint<17>) -> !firrtl.uint<16>
      %t45 = firrtl.geq %t44, %size : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<1>
      %t46 = firrtl.sub %t44, %size : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<17>
      %t47 = firrtl.bits %t46 15 to 0 : (!firrtl.uint<17>) -> !firrtl.uint<16>
      %t48 = firrtl.mux(%t45, %t47, %t44) : (!firrtl.uint<1>, !firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<16>
      %t49 = firrtl.lt %t48, %c0 : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<1>
      firrtl.when %t49 : !firrtl.uint<1> {
        %x2 = firrtl.subindex %rb_valid[2] : !firrtl.vector<uint<1>, 4>
        firrtl.matchingconnect %x2, %off : !firrtl.uint<1>
      }
      %t50 = firrtl.constant 7 : !firrtl.uint<16>
      %t51 = firrtl.sub %t50, %head : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<17>
      %t52 = firrtl.bits %t51 15 to 0 : (!firrtl.uint<17>) -> !firrtl.uint<16>
      %t53 = firrtl.add %t52, %c0 : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<17>
      %t54 = firrtl.bits %t53 15 to 0 : (!firrtl.uint<17>) -> !firrtl.uint<16>
      %t55 = firrtl.geq %t54, %size : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<1>
      %t56 = firrtl.sub %t54, %size : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<17>
      %t57 = firrtl.bits %t56 15 to 0 : (!firrtl.uint<17>) -> !firrtl.uint<16>
      %t58 = firrtl.mux(%t55, %t57, %t54) : (!firrtl.uint<1>, !firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<16>
      %t59 = firrtl.lt %t58, %c0 : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<1>
      firrtl.when %t59 : !firrtl.uint<1> {
        %x3 = firrtl.subindex %rb_valid[3] : !firrtl.vector<uint<1>, 4>
        firrtl.matchingconnect %x3, %off : !firrtl.uint<1>
      }
      %t60 = firrtl.add %head, %c0 : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<17>
      %t61 = firrtl.bits %t60 15 to 0 : (!firrtl.uint<17>) -> !firrtl.uint<16>
      %t62 = firrtl.geq %t61, %size : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<1>
      %t63 = firrtl.sub %t61, %size : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<17>
      %t64 = firrtl.bits %t63 15 to 0 : (!firrtl.uint<17>) -> !firrtl.uint<16>
      %t65 = firrtl.mux(%t62, %t64, %t61) : (!firrtl.uint<1>, !firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<16>
      %t66 = firrtl.add %alloc, %c0 : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<17>
      %t67 = firrtl.bits %t66 15 to 0 : (!firrtl.uint<17>) -> !firrtl.uint<16>
      %t68 = firrtl.geq %t67, %size : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<1>
      %t69 = firrtl.sub %t67, %size : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<17>
      %t70 = firrtl.bits %t69 15 to 0 : (!firrtl.uint<17>) -> !firrtl.uint<16>
      %t71 = firrtl.mux(%t68, %t70, %t67) : (!firrtl.uint<1>, !firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<16>
      %t72 = firrtl.add %used, %c0 : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<17>
      %t73 = firrtl.bits %t72 15 to 0 : (!firrtl.uint<17>) -> !firrtl.uint<16>
      %t74 = firrtl.sub %t73, %c0 : (!firrtl.uint<16>, !firrtl.uint<16>) -> !firrtl.uint<17>
      %t75 = firrtl.bits %t74 15 to 0 : (!firrtl.uint<17>) -> !firrtl.uint<16>
      firrtl.matchingconnect %head, %t65 : !firrtl.uint<16>
      firrtl.matchingconnect %alloc, %t71 : !firrtl.uint<16>
      firrtl.matchingconnect %used, %t75 : !firrtl.uint<16>
    }
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
