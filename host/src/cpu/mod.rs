//! The CPU backend and the reference every GPU result is checked against.
use crate::{Element, Order};

/// The reference: std's stable sort on the order bits. Equal keys keep their input
/// order, so for stable variants the GPU result must equal this exactly.
pub fn reference_sort<T: Element>(data: &mut [T], order: Order) {
    let desc = order.is_descending();
    data.sort_by_key(|x| x.ord_bits(desc));
}

/// The CPU backend's sort (stable).
pub fn sort<T: Element>(data: &mut [T], order: Order) {
    reference_sort(data, order);
}
