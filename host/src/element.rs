//! [`Element`]: the element types the library sorts, and the kernels each must have.
use kernels::SortKey;

/// An element type the library sorts: plain old data with an order-preserving key.
/// Implemented for `u32`, `i32`, `f32`, `u64`, `i64`, `f64` and [`Entity`](kernels::key::Entity).
/// Its kernels (the supertraits from `kernels`, and those of its key word `Bits` for the
/// kernels that move primitive keys as raw words) are what ties it to the built-in types.
pub trait Element:
    SortKey<Bits: kernels::segmented::SegmentedKernels + kernels::topk::TopkKernels>
    + bytemuck::Pod
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
    T: SortKey<Bits: kernels::segmented::SegmentedKernels + kernels::topk::TopkKernels>
        + bytemuck::Pod
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
