//! Philox4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as easy as 1, 2, 3",
//! SC 2011): ten rounds of two 32x32->64-bit multiplications and xors over a 128-bit counter
//! under a 64-bit key bumped by the Weyl constants each round. Emitted as integer arithmetic,
//! so it runs wherever the loops do.

use crate::emit::{Emitter, LoopBuilder};
use crate::graph::Node;
use xcc_ir::{Type, ValueId};

const MULTIPLIERS: [u32; 2] = [0xD251_1F53, 0xCD9E_8D57];
const WEYL: [u32; 2] = [0x9E37_79B9, 0xBB67_AE85];

/// The node's key: its seed's bits (the attribute is a float), or, without one, a hash of its
/// first output's name in a second stream, so that unseeded nodes differ from each other and
/// from every seed.
pub fn key(node: &Node) -> [u32; 2] {
    if node.attrs.contains_key("seed") {
        return [node.float("seed", 0.0).to_bits(), 0];
    }
    let name = node.outputs.first().map_or("", String::as_str);
    // FNV-1a.
    let hash = name.bytes().fold(0x811c_9dc5u32, |h, b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193));
    [hash, 1]
}

/// The four 32-bit words (i32 values) Philox4x32-10 gives for counter `(index, 0)` under `key`;
/// `index` is an i64.
pub fn words(e: &mut Emitter, key: [u32; 2], index: ValueId) -> [ValueId; 4] {
    let low = e.value_op("arith.trunci", &[index], Type::i32());
    let shift = e.const_int(32, Type::i64());
    let high = e.value_op("arith.shrui", &[index, shift], Type::i64());
    let high = e.value_op("arith.trunci", &[high], Type::i32());
    let zero = e.const_int(0, Type::i32());
    let mut c = [low, high, zero, zero];
    let mut k = key;
    for _ in 0..10 {
        let (hi0, lo0) = multiply(e, MULTIPLIERS[0], c[0]);
        let (hi1, lo1) = multiply(e, MULTIPLIERS[1], c[2]);
        let k0 = word(e, k[0]);
        let k1 = word(e, k[1]);
        let x0 = e.value_op("arith.xori", &[hi1, c[1]], Type::i32());
        let x2 = e.value_op("arith.xori", &[hi0, c[3]], Type::i32());
        c = [
            e.value_op("arith.xori", &[x0, k0], Type::i32()),
            lo1,
            e.value_op("arith.xori", &[x2, k1], Type::i32()),
            lo0,
        ];
        k = [k[0].wrapping_add(WEYL[0]), k[1].wrapping_add(WEYL[1])];
    }
    c
}

fn word(e: &mut Emitter, v: u32) -> ValueId {
    e.const_int(i128::from(v as i32), Type::i32())
}

/// The high and low words of the 64-bit product `m * x`.
fn multiply(e: &mut Emitter, m: u32, x: ValueId) -> (ValueId, ValueId) {
    let wide = e.value_op("arith.extui", &[x], Type::i64());
    let m = e.const_int(i128::from(m), Type::i64());
    let product = e.value_op("arith.muli", &[wide, m], Type::i64());
    let shift = e.const_int(32, Type::i64());
    let high = e.value_op("arith.shrui", &[product, shift], Type::i64());
    (e.value_op("arith.trunci", &[high], Type::i32()), e.value_op("arith.trunci", &[product], Type::i32()))
}

/// A uniform f32 in `[0, 1)` from a word's high 24 bits.
pub fn unit_f32(e: &mut Emitter, w: ValueId) -> ValueId {
    let eight = e.const_int(8, Type::i32());
    let bits = e.value_op("arith.shrui", &[w, eight], Type::i32());
    let v = e.value_op("arith.uitofp", &[bits], Type::f32());
    let scale = e.const_float(1.0 / (1u64 << 24) as f64, Type::f32());
    e.value_op("arith.mulf", &[v, scale], Type::f32())
}

/// A uniform f64 in `[0, 1)` from 27 bits of `a` and 26 of `b` (53 in all).
pub fn unit_f64(e: &mut Emitter, a: ValueId, b: ValueId) -> ValueId {
    let f64t = crate::emit::f64_type();
    let part = |e: &mut Emitter, w: ValueId, drop: i128| {
        let n = e.const_int(drop, Type::i32());
        let bits = e.value_op("arith.shrui", &[w, n], Type::i32());
        e.value_op("arith.uitofp", &[bits], f64t.clone())
    };
    let (hi, lo) = (part(e, a, 5), part(e, b, 6));
    let shift = e.const_float((1u64 << 26) as f64, f64t.clone());
    let v = e.value_op("arith.mulf", &[hi, shift], f64t.clone());
    let v = e.value_op("arith.addf", &[v, lo], f64t.clone());
    let scale = e.const_float(1.0 / (1u64 << 53) as f64, f64t.clone());
    e.value_op("arith.mulf", &[v, scale], f64t)
}

#[cfg(test)]
mod tests {
    /// The reference rounds, on the host: the known-answer vectors of Random123 (the authors'
    /// library) check the constants and the round structure the emitter repeats.
    fn philox(mut c: [u32; 4], mut k: [u32; 2]) -> [u32; 4] {
        for _ in 0..10 {
            let p0 = u64::from(super::MULTIPLIERS[0]) * u64::from(c[0]);
            let p1 = u64::from(super::MULTIPLIERS[1]) * u64::from(c[2]);
            c = [(p1 >> 32) as u32 ^ c[1] ^ k[0], p1 as u32, (p0 >> 32) as u32 ^ c[3] ^ k[1], p0 as u32];
            k = [k[0].wrapping_add(super::WEYL[0]), k[1].wrapping_add(super::WEYL[1])];
        }
        c
    }

    #[test]
    fn known_answers() {
        assert_eq!(philox([0; 4], [0; 2]), [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]);
        assert_eq!(philox([u32::MAX; 4], [u32::MAX; 2]), [0x408f_276d, 0x41c8_3b0e, 0xa20b_c7c6, 0x6d54_51fd]);
        assert_eq!(
            philox([0x243f_6a88, 0x85a3_08d3, 0x1319_8a2e, 0x0370_7344], [0xa409_3822, 0x299f_31d0]),
            [0xd16c_fe09, 0x94fd_cceb, 0x5001_e420, 0x2412_6ea1]
        );
    }
}
