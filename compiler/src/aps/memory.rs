//! Memory-map arithmetic shared by the TOR interpreter, the generators and the DMA model:
//! element → (bank, offset) placement and burst length encoding.

/// Bank and in-bank offset of logical element `el` of an entry with `n` banks of
/// `per_bank` elements: cyclic `(el % n, el / n)`, block `(el / per_bank, el % per_bank)`.
pub(crate) fn locate(el: u32, n: u32, per_bank: u32, cyclic: bool) -> (u32, u32) {
    let n = n.max(1);
    if cyclic || per_bank == 0 {
        (el % n, el / n)
    } else {
        ((el / per_bank).min(n - 1), el % per_bank)
    }
}

/// The 4-bit DMA length field: `log2(roundUpPow2(elem_bytes × length))`; `None` when the
/// transfer is empty or does not fit the field.
pub(crate) fn burst_log2(elem_bytes: u32, length: u64) -> Option<u32> {
    let bytes = (elem_bytes as u64).checked_mul(length)?;
    if bytes == 0 {
        return None;
    }
    let log = bytes.next_power_of_two().trailing_zeros();
    (log <= 15).then_some(log)
}
