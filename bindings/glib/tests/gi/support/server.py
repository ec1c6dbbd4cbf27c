"""What the Python checks with an HTTP server share (a module, not a check): Python's http.server on 127.0.0.1 (a
port of the system's choosing) serving on a thread of the test, stopped by the test class's cleanups."""
import http.server
import threading

from note import WAIT_S  # the bound of the serving thread's join


def start_server(handler, add_cleanup):
    """A ThreadingHTTPServer with `handler` on 127.0.0.1, serving on a daemon thread; `add_cleanup` (a test class's
    addClassCleanup) receives its shutdown, its close and the thread's join (bounded by WAIT_S). Returns the server
    and its base URL (`http://127.0.0.1:<port>`)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    add_cleanup(thread.join, WAIT_S)
    add_cleanup(server.server_close)
    add_cleanup(server.shutdown)
    return server, f"http://127.0.0.1:{server.server_address[1]}"
