#!/usr/bin/env python3
"""A local stand-in for the BCRP statistics API, for trying Quipu where the real one is out of reach.

Serves BCRP's real JSON shape (the samples in core/src/test/resources/bcrp/): BCRP's interbank USD and EUR, and
SBS's banking-system USD (PD04639PD-PD04640PD, fuente=sbs), which BCRP republishes; keeping the periods within
the requested date range as BCRP does:
    python3 dev/bcrp-stand-in.py 8099 &
    BCRP_BASE_URL=http://127.0.0.1:8099/estadisticas/series/api ./quipu server config.yml
Paths look like /estadisticas/series/api/PD04637PD-PD04638PD/json/2026-09-01/2026-10-01/esp.
The numbers are illustrative, not published figures. Unknown series get an HTML page, as BCRP does.
"""
import datetime
import http.server
import json
import pathlib
import sys

SAMPLES = pathlib.Path(__file__).resolve().parent.parent / "core" / "src" / "test" / "resources" / "bcrp"
FILES = {
    "PD04637PD-PD04638PD": "usd_interbancario_PD04637PD-PD04638PD.json",
    "PD04647PD-PD04648PD": "eur_PD04647PD-PD04648PD.json",
    "PD04639PD-PD04640PD": "sbs_PD04639PD-PD04640PD.json",
}

MONTHS = ["Ene", "Feb", "Mar", "Abr", "May", "Jun", "Jul", "Ago", "Set", "Oct", "Nov", "Dic"]


def period_date(name):
    day, month, year = name.split(".")
    return datetime.date(2000 + int(year), MONTHS.index(month) + 1, int(day))


def within(sample, start, end):
    data = json.loads(sample)
    data["periods"] = [p for p in data["periods"] if start <= period_date(p["name"]) <= end]
    return json.dumps(data, separators=(",", ":")).encode()


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, format, *args):
        pass

    def do_GET(self):
        parts = self.path.split("/")
        codes = parts[4] if len(parts) > 4 else ""
        name = FILES.get(codes)
        if name is None:
            body, kind = b"<html><body>Serie no encontrada</body></html>", "text/html; charset=UTF-8"
        else:
            start, end = datetime.date.fromisoformat(parts[6]), datetime.date.fromisoformat(parts[7])
            body, kind = within((SAMPLES / name).read_text(), start, end), "application/json"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8099
    http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
