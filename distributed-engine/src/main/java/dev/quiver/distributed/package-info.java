/** The distributed engine: stage planner, plan codec, cluster client and shuffle reader. */
package dev.quiver.distributed;
