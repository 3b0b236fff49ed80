/** Where the command line runs queries: in process, on an embedded cluster or on a remote one. */
package dev.quiver.examples.cluster;
