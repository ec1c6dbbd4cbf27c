// What the gjs checks share (a module, not a check: `make test` runs tests/gi/*.js only): a failing check, and the
// default main context run until a condition under a bound.
import GLib from 'gi://GLib';

export const WAIT_S = 30;

// Throws (failing the check) unless condition holds.
export function check(condition, what) {
    if (!condition)
        throw new Error(`check failed: ${what}`);
}

// Runs the default main context until done() is true (checked after each event and once first); false when WAIT_S
// passed first.
export function runUntil(loop, done) {
    let timedOut = false;
    const timeout = GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, WAIT_S, () => {
        timedOut = true;
        loop.quit();
        return GLib.SOURCE_REMOVE;
    });
    if (!done())
        loop.run();
    if (!timedOut)
        GLib.source_remove(timeout);
    return !timedOut;
}
