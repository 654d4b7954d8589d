//! Reading what the tools wrote: the testbench's `out.txt` and yosys's cell count.

use super::*;

/// What a testbench run wrote to `out.txt`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TbOutput {
    /// `(rd, value, cycle)` in response order.
    pub responses: Vec<(u32, u32, u64)>,
    /// The cycle each command was accepted.
    pub accepted: Vec<u64>,
    pub cycles: u64,
    /// CPU memory bytes that are non-zero or were written.
    pub cpu_mem: BTreeMap<u32, u8>,
    /// Bank contents by SystemVerilog instance name ([`ident`] of the IR name).
    pub banks: BTreeMap<String, Vec<u128>>,
    pub regs: BTreeMap<String, u128>,
    /// `ok`, `timeout` or `stopped` (a hazard or a fault).
    pub status: String,
    /// CPU-memory accesses outside the modelled window.
    pub errors: u64,
    /// The cycle the run ended in (nothing fired, nothing in flight).
    pub end: u64,
    /// Commands never taken.
    pub cmds_left: u64,
    /// FIFOs (IR names) still holding entries at the end.
    pub pending: Vec<String>,
    /// The first same-firing CPU-memory hazard: (rule, cycle, word address, is a load).
    pub(crate) hazard: Option<(String, u64, u32, bool)>,
    /// The first raised fault: (fault instance, rule, cycle).
    pub(crate) fault: Option<(String, String, u64)>,
    /// CSR write-backs `(lane, value, cycle)` in cycle order, and each lane's final value.
    pub csr_sets: Vec<(String, u32, u64)>,
    pub csrs: BTreeMap<String, u32>,
}

impl TbOutput {
    /// What the run means, as the rule simulator reports it: a hazard, a deadlock (work
    /// left in FIFOs or commands not taken, named with the simulator's [`crate::rules::sim::deadlock`])
    /// or a timeout; `None` for a clean end.
    pub fn failure(&self, c: &Circuit) -> Option<crate::rules::sim::SimError> {
        use crate::rules::sim::SimError;
        if let Some((inst, rule, cycle)) = &self.fault {
            let message = match c.instance(inst).map(|i| &i.kind) {
                Some(InstanceKind::Fault { message }) => message.clone(),
                _ => format!("fault `{inst}`"),
            };
            return Some(SimError::Fault {
                cycle: *cycle,
                rule: rule.clone(),
                message,
            });
        }
        if let Some((rule, cycle, addr, load)) = &self.hazard {
            return Some(SimError::Hazard {
                cycle: *cycle,
                rule: rule.clone(),
                addr: *addr,
                load: *load,
            });
        }
        if self.status == "timeout" {
            return Some(SimError::Timeout {
                cycles: self.end + 1,
            });
        }
        let order = crate::rules::sim::rule_order(c).ok()?;
        let pending: Vec<&str> = self.pending.iter().map(String::as_str).collect();
        let stopped: Vec<(String, u128)> = (c.instructions.iter())
            .filter_map(|i| match self.regs.get(&i.pc_register()) {
                Some(&pc) if pc != 0 => Some((i.function.clone(), pc)),
                _ => None,
            })
            .collect();
        crate::rules::sim::deadlock(
            &order,
            &pending,
            self.cmds_left as usize,
            &stopped,
            self.end,
        )
    }
}

/// Parse `out.txt`; malformed lines are an error naming the line.
pub fn parse_tb_output(text: &str) -> Result<TbOutput, String> {
    let mut r = TbOutput::default();
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let bad = || format!("malformed testbench output line `{line}`");
        let n = |i: usize| f.get(i).and_then(|x| x.parse::<u64>().ok()).ok_or_else(bad);
        let h = |i: usize| {
            f.get(i)
                .and_then(|x| u128::from_str_radix(x, 16).ok())
                .ok_or_else(bad)
        };
        let s = |i: usize| f.get(i).map(|x| x.to_string()).ok_or_else(bad);
        match f.first().copied() {
            Some("resp") => r.responses.push((n(1)? as u32, n(2)? as u32, n(3)?)),
            Some("cmd") => r.accepted.push(n(1)?),
            Some("cycles") => {
                let c: i64 = s(1)?.parse().map_err(|_| bad())?;
                r.cycles = c.max(0) as u64;
            }
            Some("status") => r.status = s(1)?,
            Some("errors") => r.errors = n(1)?,
            Some("end") => r.end = n(1)?,
            Some("cmds_left") => r.cmds_left = n(1)?,
            Some("fifo") => r.pending.push(s(1)?),
            Some("hazard") => {
                r.hazard = Some((s(1)?, n(2)?, n(3)? as u32, n(4)? != 0));
            }
            Some("fault") => r.fault = Some((s(1)?, s(2)?, n(3)?)),
            Some("mem") => {
                r.cpu_mem.insert(n(1)? as u32, n(2)? as u8);
            }
            Some("bank") => r.banks.entry(s(1)?).or_default().push(h(3)?),
            Some("reg") => {
                r.regs.insert(s(1)?, h(2)?);
            }
            Some("csr_set") => r.csr_sets.push((s(1)?, n(2)? as u32, n(3)?)),
            Some("csr") => {
                r.csrs.insert(s(1)?, n(2)? as u32);
            }
            _ => {}
        }
    }
    Ok(r)
}

/// The cell count of a `yosys ... synth ...; stat` log: the design total (the last
/// `Number of cells:` after the `=== design hierarchy ===` summary, or in the whole log when
/// there is one module). None when the log has no count.
pub fn yosys_cells(log: &str) -> Option<u64> {
    let stat = log.rsplit("=== design hierarchy ===").next().unwrap_or(log);
    stat.lines()
        .rev()
        .filter_map(|l| l.trim().strip_prefix("Number of cells:"))
        .find_map(|v| v.trim().parse().ok())
}
