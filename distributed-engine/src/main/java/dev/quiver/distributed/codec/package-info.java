/**
 * The plan codec: stage plans and physical expressions to protobuf ({@code quiver/v1/plan.proto})
 * on the client and back on executors, with memory-table data shipped inside the plan up to a size
 * limit, and the {@link dev.quiver.distributed.codec.NodeCodec} plug-in for plan nodes the binding
 * does not define. No Java serialization anywhere.
 */
package dev.quiver.distributed.codec;
