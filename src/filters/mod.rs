//! Filters of the blosc2 pipeline (applied to each block before the codec).
