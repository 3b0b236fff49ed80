/**
 * The command-line options the scheduler and executor processes share, as picocli mixins: where a
 * server listens and how others reach it ({@link dev.quiver.distributed.cli.ListenOptions}), its
 * TLS and tokens ({@link dev.quiver.distributed.cli.SecurityOptions}), and its {@code -V} ({@link
 * dev.quiver.distributed.cli.WireVersion}).
 */
package dev.quiver.distributed.cli;
