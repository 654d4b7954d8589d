//! Memory-map arithmetic shared by the TOR interpreter, the generators and the DMA model:
//! element → (bank, offset) placement, burst length encoding, and what one 8-byte beat of
//! the SoC's DMA engine touches (`docs/soc.md`, "DMA" and "Scratchpad burst ports").

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

/// The DMA request's `length` field for `length` elements of `elem_bytes` bytes:
/// `max(3, log2(roundUpPow2(bytes)))` (the engine moves whole 8-byte beats); `None` when
/// the transfer is empty or does not fit the 4-bit field.
pub(crate) fn dma_length(elem_bytes: u32, length: u64) -> Option<u32> {
    burst_log2(elem_bytes, length).map(|l| l.max(3))
}

/// The `stride_x`/`stride_y` attributes of a burst request (0 when absent): a `stride_x`
/// the beat engine can follow is a multiple of 8 with `stride_y ≥ 1`.
pub(crate) fn strides(
    op: &crate::mlir::ast::Operation,
) -> Result<(u8, u8), crate::diag::Diagnostic> {
    let get = |name: &str| -> Result<u8, crate::diag::Diagnostic> {
        match op.attr(name).map(|a| a.as_int()) {
            None => Ok(0),
            Some(Some(v)) if (0..=255).contains(&v) => Ok(v as u8),
            Some(_) => Err(crate::diag::Diagnostic::error(
                op.span,
                format!("`{name}` must be a number of bytes from 0 to 255 (an 8-bit field)"),
            )),
        }
    };
    let (x, y) = (get("stride_x")?, get("stride_y")?);
    if !x.is_multiple_of(8) || (x != 0 && y == 0) {
        return Err(crate::diag::Diagnostic::error(
            op.span,
            format!(
                "`stride_x = {x}, stride_y = {y}`: the DMA engine moves 8-byte beats, so a tiled burst needs `stride_x` a multiple of 8 and `stride_y` at least 1"
            ),
        ));
    }
    Ok((x, y))
}

/// The scratchpad addresses of a request's beats (`2^length` bytes, at least one beat),
/// following the tiling rule: `stride_x == 0` is linear; otherwise rows of `stride_x`
/// bytes, each row starting `stride_x · stride_y` bytes after the previous one.
pub(crate) fn beat_addresses(isax_addr: u32, length: u32, stride_x: u8, stride_y: u8) -> Vec<u32> {
    let beats = ((1u64 << length.min(15)) / 8).max(1) as usize;
    let (sx, sy) = (stride_x as u32, stride_y as u32);
    let mut out = Vec::with_capacity(beats);
    let (mut a, mut t) = (isax_addr, 0u32);
    for _ in 0..beats {
        out.push(a);
        if sx != 0 && t + 8 >= sx {
            a = a.wrapping_add(sx * sy).wrapping_sub(t);
            t = 0;
        } else {
            a = a.wrapping_add(8);
            t += 8;
        }
    }
    out
}

/// One element a beat covers: bank `bank` (index into the entry's banks) at `offset`,
/// bytes `[byte, byte + bytes)` of the beat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BeatElement {
    pub(crate) entry: usize,
    pub(crate) bank: u32,
    pub(crate) offset: u32,
    pub(crate) byte: u32,
    pub(crate) bytes: u32,
}

/// The elements of the memory map `entries` that the 8-byte beat at scratchpad address
/// `addr` covers, in byte order. Bytes outside every entry touch nothing; entries whose
/// element size is not 1, 2, 4 or 8 bytes have no burst lanes.
pub(crate) fn beat_elements(entries: &[crate::rules::DmaEntry], addr: u32) -> Vec<BeatElement> {
    let mut out = Vec::new();
    let lo = addr as u64;
    for (ei, e) in entries.iter().enumerate() {
        let eb = e.elem_bytes;
        if !matches!(eb, 1 | 2 | 4 | 8) || e.banks.is_empty() {
            continue;
        }
        let n = e.banks.len() as u32;
        let per_bank = e.size / eb / n;
        let (base, end) = (e.base as u64, e.base as u64 + e.size as u64);
        for j in 0..8 / eb {
            let a = lo + (j * eb) as u64;
            if a < base || a + eb as u64 > end {
                continue;
            }
            let el = ((a - base) / eb as u64) as u32;
            let (bank, offset) = locate(el, n, per_bank, e.cyclic);
            out.push(BeatElement {
                entry: ei,
                bank,
                offset,
                byte: j * eb,
                bytes: eb,
            });
        }
    }
    out
}
