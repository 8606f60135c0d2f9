//! [`Element`]: the element types the library sorts, and the kernels each must have.
use kernels::SortKey;
use kernels::key::BitOrder;

/// An element type the library sorts: plain old data with an order-preserving key.
/// Implemented for `u32`, `i32`, `f32`, `u64`, `i64`, `f64`, the narrow keys `u16`,
/// `i16`, [`f16`](half::f16), [`bf16`](half::bf16), `u8`, `i8`, and
/// [`Entity`](kernels::key::Entity).
/// Its kernels (the supertraits from `kernels`, and those of its key word `Bits` for the
/// kernels that move primitive keys as raw words) are what ties it to the built-in types.
pub trait Element:
    SortKey<
        Bits: kernels::segmented::SegmentedKernels
                  + kernels::topk::TopkKernels
                  + kernels::rows::RowKernels
                  + kernels::nan::NanKernels,
    > + bytemuck::Pod
    + Send
    + Sync
    + std::fmt::Debug
    + kernels::naive::NaiveKernels
    + kernels::mergepath::MergepathKernels
    + kernels::partition::PartitionKernels
    + kernels::splitters::SplitterKernels
    + kernels::bottomup::BottomupKernels
    + kernels::bitonic::BitonicKernels
    + kernels::blockmerge::BlockmergeKernels
    + kernels::shared::SharedKernels
    + kernels::quick::QuickKernels
{
}
impl<T> Element for T where
    T: SortKey<
            Bits: kernels::segmented::SegmentedKernels
                      + kernels::topk::TopkKernels
                      + kernels::rows::RowKernels
                      + kernels::nan::NanKernels,
        > + bytemuck::Pod
        + Send
        + Sync
        + std::fmt::Debug
        + kernels::naive::NaiveKernels
        + kernels::mergepath::MergepathKernels
        + kernels::partition::PartitionKernels
        + kernels::splitters::SplitterKernels
        + kernels::bottomup::BottomupKernels
        + kernels::bitonic::BitonicKernels
        + kernels::blockmerge::BlockmergeKernels
        + kernels::shared::SharedKernels
        + kernels::quick::QuickKernels
{
}

/// A primitive key: an [`Element`] that is its whole sort key (`u32`, `i32`, `f32`,
/// `u64`, `i64`, `f64`, and the narrow `u16`, `i16`, `f16`, `bf16`, `u8`, `i8`), as opposed to a record such as
/// [`Entity`](kernels::key::Entity), whose key is one field. Pairs, argsort, top-k,
/// segments and the multi-GPU sort take keys, so a record there does not compile:
///
/// ```compile_fail
/// use host::{Entity, SortOptions, Sorter};
///
/// let entities: Vec<Entity> = Vec::new();
/// // `Entity` is a record, not a `Key`: argsort of records is a compile error.
/// let _ = Sorter::with_fallback().argsort(&entities, &SortOptions::default());
/// ```
///
/// Sealed: the kernels exist for these types only.
pub trait Key: Element + sealed::Sealed {
    /// How the key's raw bits map to its order bits (the kernels that move raw words,
    /// such as the radix sort, derive the order from it).
    const KEY_ORDER: BitOrder;
}

/// Whether `T` is a 16- or 8-bit key (`u16`, `i16`, `f16`, `bf16`, `u8`, `i8`). On the
/// GPU the radix sort has kernels of their width; top-k, select_nth, segments, rows
/// and the mergepath variant run them as widened `u32` words (`variants::widen`); the
/// other variants and operations refuse them ([`narrow_refusal`]); the CPU path does
/// everything.
pub fn is_narrow<T: SortKey>() -> bool {
    T::BIT_ORDER.is_some() && size_of::<T>() < 4
}

/// The refusal of GPU work `what` (a variant, an operation) on narrow keys `T`, or
/// `Ok` for every other type (see [`is_narrow`] and `kernels::narrow`).
pub fn narrow_refusal<T: SortKey>(what: &str) -> crate::Result<()> {
    if is_narrow::<T>() {
        return Err(crate::Error::Unsupported {
            option: T::NAME,
            by: what.to_string(),
            hint: "16- and 8-bit keys run on the GPU in the radix and mergepath variants, top-k, \
                   select_nth, segments and rows; use the CPU sorter (`Sorter::cpu()`) for the others",
        });
    }
    Ok(())
}

mod sealed {
    pub trait Sealed {}
}

macro_rules! primitive_keys {
    ($($t:ty => $order:ident),*) => {$(
        impl sealed::Sealed for $t {}
        impl Key for $t {
            const KEY_ORDER: BitOrder = BitOrder::$order;
        }
    )*};
}
primitive_keys!(u32 => Unsigned, u64 => Unsigned, i32 => Signed, i64 => Signed, f32 => Float, f64 => Float);
primitive_keys!(
    u16 => Unsigned, i16 => Signed, half::f16 => Float, half::bf16 => Float, u8 => Unsigned, i8 => Signed
);

#[cfg(test)]
mod tests {
    use super::*;

    /// The key order of every primitive key is the one its `SortKey` impl declares.
    #[test]
    fn key_order_matches_the_sort_key() {
        fn check<K: Key>() {
            assert_eq!(K::BIT_ORDER, Some(K::KEY_ORDER), "{}", K::NAME);
        }
        check::<u32>();
        check::<u64>();
        check::<i32>();
        check::<i64>();
        check::<f32>();
        check::<f64>();
        check::<u16>();
        check::<i16>();
        check::<half::f16>();
        check::<half::bf16>();
        check::<u8>();
        check::<i8>();
        assert_eq!(kernels::key::Entity::BIT_ORDER, None);
    }
}
