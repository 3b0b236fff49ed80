/** Ships the Iceberg scan node in distributed plans (a {@code NodeCodec} plug-in). */
package dev.quiver.iceberg.codec;
