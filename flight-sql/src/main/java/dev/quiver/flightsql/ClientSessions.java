package dev.quiver.flightsql;

import dev.quiver.binding.SessionContext;
import dev.quiver.decorators.DistributedSessionContext;
import dev.quiver.distributed.security.FlightSecurity;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallInfo;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightServerMiddleware;
import org.apache.arrow.flight.RequestContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Quiver session per client connection, found by a cookie: the first call that needs a session
 * creates it (over the server's shared catalog) and answers with {@code set-cookie}; the JDBC
 * driver and ADBC send the cookie back on every later call of the connection. Sessions idle longer
 * than the timeout, with no call running, are closed.
 */
final class ClientSessions
    implements FlightServerMiddleware.Factory<ClientSessions.Call>, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ClientSessions.class);

  /** The cookie naming a client's session. */
  static final String COOKIE = "quiver_session";

  static final FlightServerMiddleware.Key<Call> KEY =
      FlightServerMiddleware.Key.of("quiver-session");

  private final SessionContext shared;
  private final long idleNanos;
  private final Map<String, ClientSession> sessions = new ConcurrentHashMap<>();

  /** Sessions over {@code shared}'s catalog, closed after {@code idle} without calls. */
  ClientSessions(SessionContext shared, Duration idle) {
    this.shared = shared;
    this.idleNanos = idle.toNanos();
  }

  /** A client's session: its Quiver session and the calls using it now. */
  static final class ClientSession {
    final String id;
    final SessionContext context;

    /** The user the session was opened for: no other user's call may use it. */
    final String user;

    private final AtomicInteger calls = new AtomicInteger();
    private volatile long lastUsed = System.nanoTime();

    ClientSession(String id, SessionContext context, String user) {
      this.id = id;
      this.context = context;
      this.user = user;
    }

    /** Marks a call (or a stream) using the session; pair with {@link #release()}. */
    void acquire() {
      calls.incrementAndGet();
      lastUsed = System.nanoTime();
    }

    void release() {
      lastUsed = System.nanoTime();
      calls.decrementAndGet();
    }

    boolean idleSince(long now, long idleNanos) {
      return calls.get() == 0 && now - lastUsed > idleNanos;
    }
  }

  @Override
  public Call onCallStarted(CallInfo info, CallHeaders headers, RequestContext context) {
    return new Call(this, cookie(headers), FlightSecurity.user(context));
  }

  /** A session over the shared catalog whose distributed jobs name {@code user} (when set). */
  private SessionContext open(String user) {
    return !user.isEmpty() && shared instanceof DistributedSessionContext d
        ? d.newSession(user)
        : shared.newSession();
  }

  private static String cookie(CallHeaders headers) {
    Iterable<String> values = headers.getAll("cookie");
    if (values == null) {
      return null;
    }
    for (String header : values) {
      for (String part : header.split(";")) {
        String p = part.strip();
        if (p.startsWith(COOKIE + "=")) {
          String v = p.substring(COOKIE.length() + 1);
          return v.isEmpty() ? null : v;
        }
      }
    }
    return null;
  }

  /** Ids of the open client sessions. */
  java.util.Set<String> ids() {
    return java.util.Set.copyOf(sessions.keySet());
  }

  /** Number of open client sessions. */
  int size() {
    return sessions.size();
  }

  /** Closes sessions idle for longer than the timeout; returns how many. */
  int expireIdle() {
    long now = System.nanoTime();
    int closed = 0;
    for (ClientSession s : List.copyOf(sessions.values())) {
      if (s.idleSince(now, idleNanos) && sessions.remove(s.id, s)) {
        closeQuietly(s);
        closed++;
      }
    }
    return closed;
  }

  private static void closeQuietly(ClientSession s) {
    try {
      s.context.close();
    } catch (RuntimeException e) {
      LOG.warn("closing client session {} failed: {}", s.id, e.getMessage());
    }
  }

  /** Closes every client session (before the shared one, which owns the tables). */
  @Override
  public void close() {
    for (ClientSession s : List.copyOf(sessions.values())) {
      sessions.remove(s.id);
      closeQuietly(s);
    }
  }

  /** The session state of one call. */
  static final class Call implements FlightServerMiddleware {
    private final ClientSessions owner;
    private final String cookie;
    private final String user;
    private ClientSession session;
    private boolean created;

    Call(ClientSessions owner, String cookie, String user) {
      this.owner = owner;
      this.cookie = cookie;
      this.user = user;
    }

    /** The user the call runs as ("" for none known). */
    String user() {
      return user;
    }

    /** The session of {@code id} if it is this call's user's. */
    private ClientSession own(String id) {
      ClientSession s = id == null ? null : owner.sessions.get(id);
      return s != null && s.user.equals(user) ? s : null;
    }

    /** The caller's session, created (with a cookie in the answer) if it has none yet. */
    synchronized ClientSession session() {
      if (session != null) {
        return session;
      }
      session = own(cookie);
      if (session == null) {
        if (cookie != null) {
          LOG.info("client session {} expired or is unknown; starting a new one", cookie);
        }
        String id = UUID.randomUUID().toString();
        session = new ClientSession(id, owner.open(user), user);
        owner.sessions.put(id, session);
        created = true;
      }
      session.lastUsed = System.nanoTime();
      return session;
    }

    /** Closes the caller's session, if it has one; returns its id, or null. */
    synchronized String close() {
      ClientSession s = session != null ? session : own(cookie);
      if (s == null || !owner.sessions.remove(s.id, s)) {
        return null;
      }
      closeQuietly(s);
      session = null;
      return s.id;
    }

    @Override
    public synchronized void onBeforeSendingHeaders(CallHeaders outgoing) {
      if (created && session != null) {
        outgoing.insert("set-cookie", COOKIE + "=" + session.id);
      }
    }

    @Override
    public void onCallCompleted(CallStatus status) {}

    @Override
    public void onCallErrored(Throwable err) {}
  }
}
