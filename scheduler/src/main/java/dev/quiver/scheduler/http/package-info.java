/**
 * The scheduler's HTTP routes: the JSON jobs and executors API and the web UI rendered from it
 * (server-side HTML and SVG; no script, nothing fetched from the network).
 */
package dev.quiver.scheduler.http;
