//! Workload generator (filled below).
