#!/usr/bin/env python3
"""A local stand-in for SUNAT's exchange-rate publication, for trying Quipu's fuente=sunat where SUNAT is out of reach.

Answers as the project's contract (§12) describes SUNAT's listarTipoCambio:
    python3 dev/sunat-stand-in.py 8098 &
    SUNAT_FX_BASE_URL=http://127.0.0.1:8098 ./quipu server config.yml
Quipu POSTs {"anio": 2026, "mes": 8, "token": "…"} (mes counts from 0: 8 is September) to
/cl-at-ittipcam/tcS01Alias/listarTipoCambio, and the answer is a JSON array of
{"fecPublica": "DD/MM/YYYY", "valTipo": "3.432", "codTipo": "C" | "V"}, compra and venta of each day published.

September 2026 comes from core/src/test/resources/sunat/listarTipoCambio-2026-09.json (the contract's own example,
29/09/2026: 3.432 / 3.440). Any other month gets made-up rates for its weekdays up to today in Lima, so that the
latest rate and recent ranges work too. Every number is illustrative, never a published figure. A body that is not
that JSON, or a mes outside 0-11, gets an HTML page, as an upstream failure looks to Quipu.
"""
import datetime
import http.server
import json
import pathlib
import sys

PATH = "/cl-at-ittipcam/tcS01Alias/listarTipoCambio"
SAMPLES = pathlib.Path(__file__).resolve().parent.parent / "core" / "src" / "test" / "resources" / "sunat"
FILES = {(2026, 9): "listarTipoCambio-2026-09.json"}
LIMA = datetime.timezone(datetime.timedelta(hours=-5))  # Peru keeps no daylight saving time
HTML = b"<!DOCTYPE html><html><body><p>El servicio no est\xc3\xa1 disponible.</p></body></html>"


def made_up(year, month):
    """Compra and venta for each weekday of the month up to today in Lima, 3 decimals, venta 8 thousandths above."""
    today = datetime.datetime.now(LIMA).date()
    day = datetime.date(year, month, 1)
    entries = []
    while day.month == month and day <= today:
        if day.weekday() < 5:
            compra = 3400 + (day.toordinal() * 7) % 60
            fecha = day.strftime("%d/%m/%Y")
            entries.append({"fecPublica": fecha, "valTipo": f"{compra / 1000:.3f}", "codTipo": "C"})
            entries.append({"fecPublica": fecha, "valTipo": f"{(compra + 8) / 1000:.3f}", "codTipo": "V"})
        day += datetime.timedelta(days=1)
    return json.dumps(entries, separators=(",", ":")).encode()


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, format, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        try:
            asked = json.loads(self.rfile.read(length) or b"{}")
            year, month = int(asked["anio"]), int(asked["mes"]) + 1
            if self.path != PATH or not 1 <= month <= 12:
                raise ValueError(self.path)
        except (ValueError, KeyError, TypeError):
            self.answer(HTML, "text/html; charset=UTF-8")
            return
        name = FILES.get((year, month))
        body = (SAMPLES / name).read_bytes().strip() if name else made_up(year, month)
        self.answer(body, "application/json; charset=UTF-8")

    def answer(self, body, kind):
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8098
    http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
