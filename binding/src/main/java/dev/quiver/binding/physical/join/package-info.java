/**
 * Joins: the hash join (build side collected once and shared, or partitioned by key; every join
 * type including semi and anti; a build side the memory pool refuses spills, grace-style, into hash
 * partitions of both inputs joined one by one) and the nested-loop join for conditions without
 * equalities.
 */
package dev.quiver.binding.physical.join;
