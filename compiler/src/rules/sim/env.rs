//! The world at the top's ports, as the reference environment of `docs/soc.md` behaves
//! (the module documentation of [`super`] states the model): the DMA engine's queues and
//! burst engine, the CPU-memory port's request queue and response buffer, and the clock
//! edge that commits the cycle's writes in the RTL's port order.

use super::*;

impl Dma {
    /// Whether channel `c` has nothing queued and nothing moving (`poll_for_idle_ch<c>`).
    pub(super) fn idle(&self, c: u8) -> bool {
        self.queues.get(c as usize).is_none_or(VecDeque::is_empty)
            && self.active.as_ref().is_none_or(|a| a.req.channel != c)
    }

    /// Whether anything is queued or moving.
    pub(super) fn busy(&self) -> bool {
        self.active.is_some() || self.queues.iter().any(|q| !q.is_empty())
    }

    /// Queue the requests fired this cycle, in the order APS's DMA engine takes same-cycle
    /// requests (channel 0 `cpu_to_isax`, `isax_to_cpu`, then channel 1).
    pub(super) fn queue_fired(&mut self) {
        let mut fired = std::mem::take(&mut self.fired);
        fired.sort_by_key(|r| (r.channel, !r.to_isax));
        for req in fired {
            self.seq += 1;
            if let Some(q) = self.queues.get_mut(req.channel as usize) {
                q.push_back((self.seq, req));
            }
        }
    }

    /// An idle engine takes the oldest queued request (its first beat is in the next
    /// cycle, after `latency` idle ones).
    pub(super) fn take_next(&mut self) {
        if self.active.is_some() {
            return;
        }
        let oldest = (self.queues.iter().enumerate())
            .filter_map(|(c, q)| q.front().map(|(s, _)| (*s, c)))
            .min();
        let Some((_, c)) = oldest else { return };
        let Some((_, req)) = self.queues[c].pop_front() else {
            return;
        };
        let addrs = crate::aps::memory::beat_addresses(
            req.isax_addr,
            req.length,
            req.stride_x,
            req.stride_y,
        );
        self.active = Some(Active {
            req,
            addrs,
            beat: 0,
            wait: self.latency,
            read: false,
        });
    }
}

impl MemPort {
    /// A request queued before this cycle goes out in this cycle (the environment's ready
    /// is 1): the queue's dequeue, which makes room for this cycle's requests.
    pub(super) fn head_fires(&self) -> bool {
        !self.queue.is_empty()
    }

    /// The port fires this cycle (after the rules): the queue's head, or with an empty
    /// queue the first request the rules issued in this cycle.
    pub(super) fn fires(&self) -> bool {
        !self.queue.is_empty() || !self.enq.is_empty()
    }

    pub(super) fn wrap(&self, t: u32) -> u32 {
        t % self.size.max(1)
    }

    /// The load response of tag `tag` if it is in the buffer or arrives this cycle.
    pub(super) fn arrived(&self, tag: u32) -> Option<u32> {
        match (self.buf.get(tag as usize).copied().flatten(), self.arriving) {
            (Some(v), _) => Some(v),
            (None, Some((t, true, v))) if t == tag => Some(v),
            _ => None,
        }
    }
}

impl State {
    /// Commit the clock edge; returns whether work is still in flight (DMA, memory).
    ///
    /// Order (the RTL's port order): DMA beats and the CPU-memory port's load read the
    /// state committed before this cycle; the rules' bank writes commit, then the DMA's;
    /// the port's store, then the DMA's CPU writes.
    pub(super) fn end_of_cycle(&mut self) -> bool {
        let beats = self.dma_beats();
        let mut stores = Vec::new();
        for &i in &self.io {
            if let Slot::MemPort(p) = &mut self.slots[i] {
                // The reference environment: the request that fires now is answered in
                // the next cycle (a load with memory as this cycle starts).
                let fired = match p.queue.pop_front() {
                    Some(r) => Some(r),
                    None if !p.enq.is_empty() => Some(p.enq.remove(0)),
                    None => None,
                };
                let next = fired.map(|r| {
                    let data = match r.load {
                        true => read_word(&self.cpu_mem, r.addr),
                        false => {
                            stores.push((r.addr, r.data));
                            0
                        }
                    };
                    (r.tag, r.load, data)
                });
                if let Some((t, true, v)) = p.arriving {
                    let n = p.buf.len();
                    p.buf[t as usize % n] = Some(v);
                }
                for k in 0..p.taken {
                    let t = p.wrap(p.head + k);
                    p.buf[t as usize] = None;
                }
                p.head = p.wrap(p.head + p.taken);
                p.alloc = p.wrap(p.alloc + p.loads);
                p.used = p.used + p.loads - p.taken;
                p.queue.extend(p.enq.drain(..));
                p.arriving = next;
                p.loads = 0;
                p.taken = 0;
            }
        }
        // A command firing now latches the CSR values as the cycle starts.
        if self.cmd_port_fires() {
            for &i in &self.csrs {
                if let Slot::Csr(c) = &mut self.slots[i] {
                    c.latched = c.value;
                }
            }
        }
        let mut touched = std::mem::take(&mut self.touched);
        for &i in &touched {
            match &mut self.slots[i] {
                Slot::Fifo(f) => f.items.extend(f.pending.drain(..)),
                Slot::Reg(r) => {
                    if let Some(v) = r.pending.take() {
                        r.value = v;
                    }
                }
                Slot::Bank(b) => {
                    for (i, v) in b.pending.drain(..) {
                        b.data[i] = v;
                    }
                    if let Some(v) = b.latch_pending.take() {
                        b.latch = v;
                    }
                }
                Slot::Csr(c) => {
                    if let Some(v) = c.pending.take() {
                        c.value = (v & c.mask) | (c.value & !c.mask);
                    }
                }
                _ => {}
            }
        }
        touched.clear();
        self.touched = touched;
        for (addr, v) in stores {
            write_word(&mut self.cpu_mem, addr, v);
        }
        for w in beats {
            match w {
                BeatWrite::Bank { slot, index, value } => {
                    if let Slot::Bank(b) = &mut self.slots[slot] {
                        b.data[index] = mask(value, b.width);
                    }
                }
                BeatWrite::Cpu { addr, bytes, value } => {
                    write_bytes(&mut self.cpu_mem, addr, bytes, value)
                }
                BeatWrite::Latch { slot, value } => {
                    if let Slot::Dma(d) = &mut self.slots[slot] {
                        d.latch = value;
                    }
                }
            }
        }
        // The command port: the register takes the presented command when it is empty or
        // a rule took its command this cycle (visible to the rules from the next cycle).
        let mut busy = self.cmd_port_fires();
        if self.cmd_taken {
            self.cmd_reg = None;
        }
        if busy {
            self.cmd_reg = self.cmds.pop_front();
            self.accepted.push(self.cycle);
            self.cpu_csr_writes(self.accepted.len());
        }
        self.cmd_taken = false;
        self.resp_sent = false;
        for &i in &self.io {
            match &mut self.slots[i] {
                Slot::MemPort(p) => {
                    busy |= !p.queue.is_empty() || p.arriving.is_some() || p.used > 0;
                }
                Slot::Dma(d) => {
                    // A request queued or moving in this cycle: the run goes on (its end
                    // is visible to polls in the next cycle).
                    busy |= d.busy();
                    // The beat of this cycle fired (the top's burst ports are always
                    // ready): the engine moves on; the requests of this cycle are queued.
                    if let Some(a) = &mut d.active {
                        if a.wait > 0 {
                            a.wait -= 1;
                        } else if !a.req.to_isax && !a.read {
                            a.read = true;
                        } else {
                            a.read = false;
                            a.beat += 1;
                        }
                        if a.beat >= a.addrs.len() {
                            d.active = None;
                        }
                    }
                    d.queue_fired();
                    d.take_next();
                    busy |= d.busy();
                }
                _ => {}
            }
        }
        busy
    }

    /// Whether the command port fires this cycle (after the rules): a command is presented
    /// and the register is empty or its command was taken (`rocc_cmd_ready` does not
    /// depend on `rocc_cmd_enable`).
    pub(super) fn cmd_port_fires(&self) -> bool {
        !self.cmds.is_empty() && (self.cmd_reg.is_none() || self.cmd_taken)
    }

    /// What the DMA engines' beats of this cycle do, read from the committed state: a
    /// `burst_write` writes the elements it covers, a `burst_read_0` latches the beat, a
    /// `burst_read_1` writes the latched beat (8 bytes) to CPU memory.
    pub(super) fn dma_beats(&self) -> Vec<BeatWrite> {
        let mut out = Vec::new();
        for &i in &self.io {
            let Slot::Dma(d) = &self.slots[i] else {
                continue;
            };
            let Some(a) = d.active.as_ref().filter(|a| a.wait == 0) else {
                continue;
            };
            let Some(&addr) = a.addrs.get(a.beat) else {
                continue;
            };
            let cpu = a.req.cpu_addr.wrapping_add(8 * a.beat as u32);
            if !a.req.to_isax && a.read {
                out.push(BeatWrite::Cpu {
                    addr: cpu,
                    bytes: 8,
                    value: d.latch,
                });
                continue;
            }
            let mut beat = 0u128;
            for el in crate::aps::memory::beat_elements(&d.entries, addr) {
                let bank = d.entries[el.entry].banks.get(el.bank as usize);
                let Some(&bi) = bank.and_then(|b| self.index.get(b)) else {
                    continue;
                };
                let Slot::Bank(b) = &self.slots[bi] else {
                    continue;
                };
                let Some(index) = bank_index(el.offset as u128, b.data.len()) else {
                    continue;
                };
                if a.req.to_isax {
                    out.push(BeatWrite::Bank {
                        slot: bi,
                        index,
                        value: read_bytes(&self.cpu_mem, cpu.wrapping_add(el.byte), el.bytes),
                    });
                } else {
                    beat |= mask(b.data[index], 8 * el.bytes) << (8 * el.byte);
                }
            }
            if !a.req.to_isax {
                out.push(BeatWrite::Latch {
                    slot: i,
                    value: beat,
                });
            }
        }
        out
    }
}
