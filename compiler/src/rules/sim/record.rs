//! What the simulator records when asked (`kiln sim --trace`, `--vcd`): each firing's
//! events ([`State::record`]) and each cycle's waveform values ([`Probe`]).

use super::*;
use crate::rules::trace::hex;
use crate::rules::waves::{Signal, Source};

/// One cycle's waveform values being gathered ([`super::waves`]): the state as the cycle
/// starts, then the rules that fire and what they do at the ports.
pub(super) struct Probe {
    start: Vec<u128>,
    fired: Vec<bool>,
    resp: Option<(u32, u32)>,
    dma: Vec<usize>,
}

impl Probe {
    pub(super) fn start(st: &State, signals: &[Signal], rules: usize) -> Probe {
        let slot = |name: &str| st.index.get(name).map(|&i| &st.slots[i]);
        let start = signals
            .iter()
            .map(|s| match &s.source {
                Source::Reg(n) => match slot(n) {
                    Some(Slot::Reg(r)) => r.value,
                    _ => 0,
                },
                Source::FifoCount(n) => match slot(n) {
                    Some(Slot::Fifo(f)) => f.items.len() as u128,
                    _ => 0,
                },
                Source::FifoHead(n) => match slot(n) {
                    Some(Slot::Fifo(f)) => f.items.front().copied().unwrap_or(0),
                    _ => 0,
                },
                _ => 0,
            })
            .collect();
        Probe {
            start,
            fired: vec![false; rules],
            resp: None,
            dma: Vec::new(),
        }
    }

    /// Rule `k` of the schedule order fired with effects `tx`.
    pub(super) fn fired(&mut self, k: usize, tx: &Tx) {
        self.fired[k] = true;
        if let Some(&r) = tx.responses.first() {
            self.resp = Some(r);
        }
        for (i, _) in &tx.dma_requests {
            self.dma.push(*i);
        }
    }

    pub(super) fn row(self, st: &State, signals: &[Signal]) -> Vec<u128> {
        let mut rule = 0;
        signals
            .iter()
            .zip(self.start)
            .map(|(s, v)| match &s.source {
                Source::CmdFire => u128::from(st.cmd_port_fires()),
                Source::RespFire => u128::from(self.resp.is_some()),
                Source::RespRd => self.resp.map_or(0, |r| r.0 as u128),
                Source::RespData => self.resp.map_or(0, |r| r.1 as u128),
                Source::DmaFire(n) => {
                    u128::from(st.index.get(n).is_some_and(|i| self.dma.contains(i)))
                }
                Source::MemFire(n) => u128::from(
                    st.index
                        .get(n)
                        .is_some_and(|&i| matches!(&st.slots[i], Slot::MemPort(p) if p.fires())),
                ),
                Source::WillFire(_) => {
                    rule += 1;
                    u128::from(self.fired.get(rule - 1).copied().unwrap_or(false))
                }
                _ => v,
            })
            .collect()
    }
}

impl State {
    /// The events of `rule`'s firing with effects `tx` (before they are applied).
    pub(super) fn record(&self, rule: &crate::rules::Rule, tx: &Tx, out: &mut Vec<Traced>) {
        let cycle = self.cycle;
        let name = |i: usize| self.names[i].clone();
        let mut push = |event| out.push(Traced { cycle, event });
        push(Event::Fire {
            rule: rule.name.clone(),
        });
        if tx.cmd_taken
            && let Some(c) = &self.cmd_reg
        {
            push(Event::Accept {
                opcode: c.opcode,
                funct7: c.funct7,
                rs1: c.rs1,
                rs2: c.rs2,
                rd: c.rd,
            });
        }
        for &i in &tx.deqs {
            push(Event::Deq { fifo: name(i) });
        }
        for &(i, v) in &tx.enqs {
            push(Event::Enq {
                fifo: name(i),
                value: hex(v),
            });
        }
        for &(i, v) in &tx.reg_writes {
            push(Event::Write {
                reg: name(i),
                value: hex(v),
            });
        }
        for &(i, index, v) in &tx.bank_writes {
            push(Event::BankWrite {
                bank: name(i),
                index,
                value: hex(v),
            });
        }
        for &(i, v) in &tx.latch_writes {
            push(Event::BankLatch {
                bank: name(i),
                value: hex(v),
            });
        }
        for (i, r) in &tx.dma_requests {
            push(Event::DmaStart {
                dma: format!("{} ch{}", name(*i), r.channel),
                to_isax: r.to_isax,
                cpu_addr: r.cpu_addr,
                isax_addr: r.isax_addr,
                bytes: 1 << r.length,
            });
        }
        for &(i, r) in tx.mem_reqs.iter().filter(|(_, r)| r.load) {
            push(Event::Load {
                port: name(i),
                addr: r.addr,
            });
        }
        for &(i, r) in tx.mem_reqs.iter().filter(|(_, r)| !r.load) {
            push(Event::Store {
                port: name(i),
                addr: r.addr,
                value: r.data,
            });
        }
        for &i in &tx.mem_resp_taken {
            push(Event::LoadResponse { port: name(i) });
        }
        for &(rd, value) in &tx.responses {
            push(Event::Respond { rd, value });
        }
        if let Some(message) = &tx.fault {
            push(Event::Fault {
                message: message.clone(),
            });
        }
    }
}
