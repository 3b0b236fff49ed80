package dev.quiver.distributed.codec;

/** Turns the plan bytes of a task launch back into a runnable stage plan. */
@FunctionalInterface
public interface StageDecoder {
  /**
   * Decodes {@code bytes}.
   *
   * @throws PlanCodecException when the bytes are not a valid plan or name something this process
   *     lacks (a node kind, a UDF, a table provider)
   */
  DecodedStage decode(byte[] bytes, DecodeContext context);
}
