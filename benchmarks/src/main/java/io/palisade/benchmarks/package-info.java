/**
 * JMH benchmarks ({@code bin/bench}) and whole-process cost harnesses behind docs/benchmarks.md, each measuring
 * Palisade side by side with a peer in the same run: raw Lance through the substrate, a plain Chronicle appender, the
 * same workload on another journal or object store, or a Lance-style split-block Bloom filter
 * ({@link io.palisade.benchmarks.SplitBlockBloomFilter}) beside the exact key filter. A result is the ratio to that
 * peer, not an absolute time, which moves between runs on a shared machine; no test asserts a timing (DESIGN §8).
 * Not an API: nothing in Palisade depends on this package.
 */
package io.palisade.benchmarks;
