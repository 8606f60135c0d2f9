//! Sort game entities by distance from the player, nearest last (the Catania report's
//! use case), keeping entities at equal distance in input order.
//!
//! `cargo run -p host --example sort_entities`
use host::{Entity, Order, SortOptions, Sorter, Variant};

fn main() -> Result<(), host::Error> {
    let player = [10.0f32, 0.0, 5.0];
    let positions = [[0.0, 0.0, 0.0], [10.0, 0.0, 6.0], [13.0, 4.0, 5.0], [10.0, 1.0, 5.0], [20.0, 0.0, 5.0]];
    let mut entities: Vec<Entity> = positions
        .iter()
        .enumerate()
        .map(|(id, &position)| {
            let d: f32 = position.iter().zip(player).map(|(p, q)| (p - q) * (p - q)).sum::<f32>().sqrt();
            Entity { distance_from_player: d, id: id as u32, position }
        })
        .collect();
    // Stable variants keep ties (ids 1 and 3 are both 1.0 away) in input order.
    let variant = Variant::ALL.iter().copied().find(|v| v.is_stable()).unwrap_or_default();
    let opts = SortOptions::new(variant).order(Order::Descending);
    let backend = Sorter::with_fallback().sort(&mut entities, &opts)?;
    println!("farthest first ({variant} on {backend}):");
    for e in &entities {
        println!("  id {:>2}  distance {:>7.3}  at {:?}", e.id, e.distance_from_player, e.position);
    }
    Ok(())
}
