package io.palisade.fencing.action;

/** An additional storage base of a table (Lance's UpdateBases). */
public record BasePath(int id, String name, String path) {
}
