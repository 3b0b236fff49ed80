/** Placeholder until the distributed-engine issue: binding-decorators. */
package dev.quiver.decorators;
