"""LEO constellations: Walker-delta shells and TLEs propagated with SGP4,
ground stations, +Grid inter-satellite links, and the shortest paths of
each routing snapshot over time, as Hypatia (Kassing et al., IMC 2020)
models them. See docs/leo.md."""
