/**
 * Joins: the hash join (build side collected once and shared, or partitioned by key; every join
 * type including semi and anti) and the nested-loop join for conditions without equalities.
 */
package dev.quiver.binding.physical.join;
