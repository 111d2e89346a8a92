# team: sources, tests, examples and benchmarks of this area.
