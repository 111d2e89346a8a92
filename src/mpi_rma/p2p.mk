# p2p: sources, tests, examples and benchmarks of this area.
