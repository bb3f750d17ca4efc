//! Typed indices into arenas: the IR refers to operations, blocks, regions and values by id.

use std::marker::PhantomData;

macro_rules! entity {
    ($(#[$m:meta])* $name:ident, $prefix:literal) => {
        $(#[$m])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
        pub struct $name(u32);
        impl $name {
            pub fn index(self) -> usize {
                self.0 as usize
            }
            pub fn from_index(i: usize) -> Self {
                $name(i as u32)
            }
        }
        impl EntityId for $name {
            fn new(index: usize) -> Self {
                $name(index as u32)
            }
            fn index(self) -> usize {
                self.0 as usize
            }
        }
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

pub trait EntityId: Copy {
    fn new(index: usize) -> Self;
    fn index(self) -> usize;
}

entity!(
    /// An operation.
    OpId, "op");
entity!(
    /// A block: arguments and a list of operations ending in a terminator.
    BlockId, "bb");
entity!(
    /// A region: a list of blocks owned by an operation.
    RegionId, "region");
entity!(
    /// An SSA value: an operation result or a block argument.
    ValueId, "v");

/// A growable table of `T` indexed by `K`.
#[derive(Clone, Debug)]
pub struct Arena<K, T> {
    items: Vec<T>,
    _key: PhantomData<K>,
}

impl<K: EntityId, T> Default for Arena<K, T> {
    fn default() -> Self {
        Arena { items: Vec::new(), _key: PhantomData }
    }
}

impl<K: EntityId, T> Arena<K, T> {
    pub fn push(&mut self, item: T) -> K {
        self.items.push(item);
        K::new(self.items.len() - 1)
    }
    pub fn with_capacity(capacity: usize) -> Self {
        Arena { items: Vec::with_capacity(capacity), _key: PhantomData }
    }
    pub fn len(&self) -> usize {
        self.items.len()
    }
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    pub fn keys(&self) -> impl Iterator<Item = K> {
        (0..self.items.len()).map(K::new)
    }
}

impl<K: EntityId, T> std::ops::Index<K> for Arena<K, T> {
    type Output = T;
    fn index(&self, k: K) -> &T {
        &self.items[k.index()]
    }
}

impl<K: EntityId, T> std::ops::IndexMut<K> for Arena<K, T> {
    fn index_mut(&mut self, k: K) -> &mut T {
        &mut self.items[k.index()]
    }
}
