"""Options shared by the commands that count with a provider's endpoint or apply a calibration."""

from __future__ import annotations

import argparse
import sys
import time

from ._common import fit, say


def add_endpoint_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("exact counting (keys from ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY)")
    g.add_argument("--base-url", default=None, metavar="URL",
                   help="the provider's API base URL (a proxy or gateway); default: ANTHROPIC_BASE_URL, "
                        "OPENAI_BASE_URL or GOOGLE_GEMINI_BASE_URL, else the provider's own")
    g.add_argument("--cache-dir", default=None, metavar="DIR",
                   help="where counts are cached (default: TOOLSURVEY_CACHE_DIR or the user cache folder)")
    g.add_argument("--no-cache", action="store_true", help="count everything again and cache nothing")
    g.add_argument("--concurrency", type=int, default=None, metavar="N", help="requests in flight (default: 4)")
    g.add_argument("--timeout", type=float, default=30.0, metavar="SECONDS", help="per request (default: %(default)s)")
    g.add_argument("--retries", type=int, default=5, metavar="N",
                   help="retries of a request after 429, 5xx or a timeout (default: %(default)s)")
    g.add_argument("--dry-run", action="store_true", help="say how many requests would be sent, and send none")


def add_counting_args(p: argparse.ArgumentParser) -> None:
    """--count-with and --calibration, plus the endpoint options."""
    p.add_argument("--count-with", default=None, metavar="PROVIDER:MODEL",
                   help="exact counts from the provider's token-counting endpoint, e.g. anthropic:claude-sonnet-4-5")
    p.add_argument("--calibration", default=None, metavar="FILE",
                   help="scale the offline counts by a calibration file from `toolsurvey calibrate`")
    add_endpoint_args(p)


def endpoint_kwargs(args: argparse.Namespace) -> dict:
    """The endpoint options as keyword arguments; raises InputError for a non-positive number."""
    from ..errors import InputError

    if args.timeout <= 0 or (args.concurrency is not None and args.concurrency < 1) or args.retries < 0:
        raise InputError(f"expected --timeout > 0, --concurrency >= 1 and --retries >= 0; found "
                         f"{args.timeout:g}, {args.concurrency}, {args.retries}")
    return {"base": args.base_url, "cache_dir": args.cache_dir, "use_cache": not args.no_cache,
            "concurrency": args.concurrency, "timeout": args.timeout, "retries": args.retries,
            "progress": Progress()}


def dry_run_kwargs(args: argparse.Namespace) -> dict:
    """The endpoint options `counting.dry_run` takes: it sends nothing, so no progress, concurrency,
    timeout or retries; raises InputError like `endpoint_kwargs`."""
    kw = endpoint_kwargs(args)
    for k in ("progress", "concurrency", "timeout", "retries"):
        kw.pop(k)
    return kw


class Progress:
    """Requests done, on stderr: one updating line on a terminal, a few plain lines otherwise."""

    def __init__(self, stream=None, min_total: int = 10):
        self.stream = stream or sys.stderr
        self.min_total = min_total
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.last = -1.0
        self.shown = 0

    def __call__(self, done: int, total: int, sent: int, cached: int) -> None:
        if total < self.min_total:
            return
        now = time.monotonic()
        final = done == total
        if self.tty:
            if final or now - self.last > 0.1:
                end = "\n" if final else ""
                self.stream.write(f"\rcounting: {done:,}/{total:,} requests ({cached:,} cached, {sent:,} sent){end}")
                self.stream.flush()
                self.last = now
        elif final or done * 4 // total > self.shown:  # at 25% steps
            self.shown = done * 4 // total
            say(f"counting: {done:,}/{total:,} requests ({cached:,} cached, {sent:,} sent)", self.stream)


def dry_run_text(info: dict) -> str:
    key = ("" if info["key_set"] else
           f"; no key is set: {' or '.join(info['key_vars'])} is needed to send them")
    parts = f" (the tools in {info['parts']} parts: too large for one request)" if info["parts"] > 1 else ""
    return (f"dry run: would send {info['to_send']:,} of {info['requests']:,} requests to {info['url']} "
            f"for {info['tools']:,} tools{parts}; {info['cached']:,} are answered from the cache{key}\n")


def counted_table(reg, table, args: argparse.Namespace):
    """The footprint table `args` ask for: exact (--count-with), calibrated (--calibration), or as is.

    Returns None after a dry run (which prints what would be sent)."""
    from ..errors import InputError

    if getattr(args, "count_with", None) and getattr(args, "calibration", None):
        raise InputError("--count-with gives exact counts, which need no --calibration; pass one of them")
    if getattr(args, "dry_run", False) and not getattr(args, "count_with", None):
        raise InputError("--dry-run applies to --count-with PROVIDER:MODEL, which is not given")
    if getattr(args, "count_with", None):
        from ..measuring.counting.exact import dry_run, exact_footprint

        if args.dry_run:
            sys.stdout.write(fit(dry_run_text(dry_run(reg, args.count_with, **dry_run_kwargs(args)))))
            return None
        return exact_footprint(reg, args.count_with, **endpoint_kwargs(args))
    if getattr(args, "calibration", None):
        from ..measuring.calibration import apply_calibration, load_calibration

        return apply_calibration(table, load_calibration(args.calibration))
    return table
