package io.palisade.fencing.action;

/** One old-fragment → new-fragment pair of a compaction remap group. */
public record Remap(long oldFragment, FragmentRef newFragment) {
}
