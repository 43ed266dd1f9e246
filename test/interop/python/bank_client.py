#!/usr/bin/env python3
"""A Connector written in Python from the docs alone (docs/connector-guide.md, the shared profile and contract),
with the standard library, requests, cryptography and PyJWT, and nothing of the Bank's code.

It runs against a listening Bank and prints one JSON object (one line) of results; test/interop/python.test.ts
asserts them. The checks:

  a  tokens: client_secret_basic, client_secret_post, and a DPoP-bound token (RFC 9449 proof made with PyJWT);
     every token is decoded and verified with PyJWT against the Bank's JWKS (RFC 9068)
  b  signed creates (profile section 1: Content-Digest per RFC 9530, detached ES256 JWS in X-Signature), with
     Authorization: Bearer and with Authorization: DPoP (+ proof with ath)
  c  reverse polling over mTLS with requests (cert=(crt, key), verify=ca.crt) until the status is final
  d  a Connector receiving callbacks: an http.server that verifies each X-Signature against the Bank's JWKS (key
     built with cryptography), checks Content-Digest, X-Client-Id, X-Timestamp and X-Nonce, and answers 200
  e  refusals seen by the client: a wrong Content-Digest, a stale X-Timestamp, a reused X-Nonce; each an RFC 9457
     problem that response.json() parses

Inputs, as options or environment variables (options win):
  --bank-url / BANK_URL                 plain-HTTP listener, e.g. http://localhost:8080 (tokens, create, JWKS)
  --bank-tls-url / BANK_TLS_URL         HTTPS listener, e.g. https://localhost:8443 (reverse polling, mTLS)
  --credentials / CREDENTIALS_FILE      the client's credentials.json (client_id, client_secret, private_jwk)
  --ca / CA_FILE                        the sandbox CA (DATA_DIR/pki/ca.crt)
  --cert / CLIENT_CERT_FILE             the client certificate (DATA_DIR/pki/clients/<client_id>.crt)
  --key / CLIENT_KEY_FILE               its key (DATA_DIR/pki/clients/<client_id>.key)
  --callback-port / CALLBACK_PORT       port of 127.0.0.1 to receive callbacks on (the Bank's CONNECTOR_URL);
                                        0 or absent skips check d
  --checks / CHECKS                     which checks to run, default "abcde"
  --audience / TOKEN_AUDIENCE           expected aud of the access tokens, default sandbox-bank
  --issuer / ISSUER                     expected iss of the access tokens, default sandbox-bank
  --bank-client-id / BANK_CLIENT_ID     X-Client-Id the Bank sends on callbacks, default sandbox-bank
"""
import argparse
import base64
import hashlib
import http.server
import json
import os
import secrets
import sys
import threading
import time
import traceback
import uuid
from datetime import datetime, timezone
from urllib.parse import quote, urlsplit, urlunsplit

import jwt
import requests
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature
from jwt.algorithms import ECAlgorithm

EMPTY_DIGEST = "sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:"
PROBLEM_MEMBERS = ("type", "title", "status", "detail", "instance", "code", "request_id")


# ---------------------------------------------------------------------------------------------------------------
# Encoding helpers


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def digest(body: bytes) -> str:
    """RFC 9530 Content-Digest value (and the profile's content-digest line): sha-256=:<standard base64>:"""
    return "sha-256=:" + base64.b64encode(hashlib.sha256(body).digest()).decode("ascii") + ":"


def timestamp(offset_s: float = 0) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + offset_s))


def nonce() -> str:
    return secrets.token_urlsafe(16)  # 22 characters of [A-Za-z0-9_-]


def jwk_thumbprint(jwk: dict) -> str:
    """RFC 7638 thumbprint of an EC public JWK."""
    members = {name: jwk[name] for name in ("crv", "kty", "x", "y")}
    return b64url(hashlib.sha256(json.dumps(members, separators=(",", ":"), sort_keys=True).encode()).digest())


def ec_public_key(jwk: dict) -> ec.EllipticCurvePublicKey:
    """An EC P-256 public key from its JWK, with cryptography alone."""
    if jwk.get("kty") != "EC" or jwk.get("crv") != "P-256":
        raise ValueError(f"not an EC P-256 key: kty={jwk.get('kty')} crv={jwk.get('crv')}")
    x = int.from_bytes(b64url_decode(jwk["x"]), "big")
    y = int.from_bytes(b64url_decode(jwk["y"]), "big")
    return ec.EllipticCurvePublicNumbers(x, y, ec.SECP256R1()).public_key()


def ec_private_key(jwk: dict) -> ec.EllipticCurvePrivateKey:
    return ec.derive_private_key(int.from_bytes(b64url_decode(jwk["d"]), "big"), ec.SECP256R1())


def url_without_query(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


def capture(response: requests.Response) -> dict:
    """The answer as the test wants to see it; json is what response.json() gives (None when it raises)."""
    try:
        body = response.json()
        json_error = None
    except ValueError as error:
        body = None
        json_error = f"{type(error).__name__}: {error}"
    return {
        "status": response.status_code,
        "headers": {name.lower(): value for name, value in response.headers.items()},
        "text": response.text,
        "json": body,
        "json_error": json_error,
    }


def attempt(function, *args, **kwargs) -> dict:
    """{"ok": true, ...value} or {"ok": false, "error": {...}}: a library's exception is a result, not a crash."""
    try:
        value = function(*args, **kwargs)
        return {"ok": True, **value}
    except Exception as error:  # noqa: BLE001 - reported, asserted by the test
        return {"ok": False, "error": {"name": type(error).__name__, "message": str(error), "trace": traceback.format_exc(limit=4)}}


# ---------------------------------------------------------------------------------------------------------------
# The client


class Client:
    def __init__(self, args):
        with open(args.credentials, encoding="utf-8") as file:
            self.creds = json.load(file)
        self.client_id = self.creds["client_id"]
        self.kid = self.creds["private_jwk"]["kid"]
        self.signing_key = ec_private_key(self.creds["private_jwk"])
        self.bank_url = args.bank_url.rstrip("/")
        self.bank_tls_url = (args.bank_tls_url or "").rstrip("/")
        self.audience = args.audience
        self.issuer = args.issuer
        self.ca = args.ca
        self.cert = (args.cert, args.key) if args.cert and args.key else None
        self.session = requests.Session()
        # connector-guide.md: REQUESTS_CA_BUNDLE would replace session.verify; pass verify per call too.
        self.session.trust_env = False
        self.session.verify = args.ca if args.ca else True
        # One DPoP key pair for the bound token and every proof made with it (RFC 9449 section 5).
        self.dpop_key = ec.generate_private_key(ec.SECP256R1())
        self.dpop_jwk = json.loads(ECAlgorithm.to_jwk(self.dpop_key.public_key()))
        self._jwks = None

    # ---- keys ----

    def jwks(self, refresh: bool = False) -> dict:
        if self._jwks is None or refresh:
            response = self.session.get(f"{self.bank_url}/.well-known/jwks.json", timeout=10)
            response.raise_for_status()
            self._jwks = response.json()
        return self._jwks

    def bank_key(self, kid: str):
        """The Bank's JWK named kid; an unknown kid refetches the set once (profile section 1)."""
        for refresh in (False, True):
            for jwk in self.jwks(refresh)["keys"]:
                if jwk.get("kid") == kid:
                    return jwk
        return None

    # ---- signing ----

    def x_signature(self, lines: list) -> str:
        """Detached compact JWS (RFC 7515 appendix F) over the signature base, ES256 with r || s (RFC 7518 3.4)."""
        protected = b64url(json.dumps({"alg": "ES256", "kid": self.kid, "typ": "JOSE"}, separators=(",", ":")).encode())
        signing_input = f"{protected}.{b64url(chr(10).join(lines).encode('utf-8'))}".encode("ascii")
        r, s = decode_dss_signature(self.signing_key.sign(signing_input, ec.ECDSA(hashes.SHA256())))
        return f"{protected}..{b64url(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}"

    def dpop_proof(self, method: str, url: str, access_token: str = None) -> str:
        """RFC 9449 section 4.2 proof, made with PyJWT: typ dpop+jwt, the public jwk in the header."""
        claims = {"htm": method, "htu": url_without_query(url), "iat": int(time.time()), "jti": secrets.token_urlsafe(24)}
        if access_token is not None:
            claims["ath"] = b64url(hashlib.sha256(access_token.encode("ascii")).digest())
        return jwt.encode(claims, self.dpop_key, algorithm="ES256", headers={"typ": "dpop+jwt", "jwk": self.dpop_jwk})

    # ---- token endpoint ----

    def token(self, auth: str = "basic", dpop: bool = False) -> dict:
        url = f"{self.bank_url}/oauth/token"
        data = {"grant_type": "client_credentials"}
        kwargs = {}
        if auth == "basic":
            kwargs["auth"] = (self.client_id, self.creds["client_secret"])
        else:
            data.update(client_id=self.client_id, client_secret=self.creds["client_secret"])
        headers = {"DPoP": self.dpop_proof("POST", url)} if dpop else {}
        response = self.session.post(url, data=data, headers=headers, timeout=10, **kwargs)
        answer = capture(response)
        if response.status_code != 200:
            return {**answer, "error": answer["json"]}
        body = response.json()
        return {**answer, "token": body["access_token"], "token_type": body.get("token_type"), "expires_in": body.get("expires_in")}

    def check_access_token(self, access_token: str) -> dict:
        """RFC 9068 section 4: typ at+jwt, signature by a key of the Bank's JWKS, iss, aud, exp."""
        header = jwt.get_unverified_header(access_token)
        jwk = self.bank_key(header.get("kid"))
        if jwk is None:
            raise ValueError(f"kid {header.get('kid')!r} is not in the Bank's JWKS")
        claims = jwt.decode(
            access_token,
            ECAlgorithm.from_jwk(json.dumps(jwk)),
            algorithms=["ES256"],
            audience=self.audience,
            issuer=self.issuer,
            options={"require": ["iss", "sub", "aud", "exp", "iat", "jti"]},
        )
        return {"header": header, "claims": claims}

    # ---- create ----

    def create(self, order: dict, access_token: str, scheme: str = "Bearer", **tamper) -> dict:
        body = json.dumps(order, separators=(",", ":")).encode("utf-8")  # sign and send these exact bytes
        url = f"{self.bank_url}/payment-orders"
        h = {
            "X-Client-Id": self.client_id,
            "X-Request-Id": str(uuid.uuid4()),
            "X-Timestamp": tamper.get("timestamp") or timestamp(),
            "X-Nonce": tamper.get("nonce") or nonce(),
            "X-Idempotency-Key": tamper.get("idempotency_key") or f"{order['reference']}-create",
        }
        base = [
            "@method: POST",
            "@target-uri: /payment-orders",
            *(f"{name.lower()}: {value}" for name, value in h.items()),
            f"content-digest: {digest(body)}",
        ]
        h["X-Signature"] = self.x_signature(base)
        h["Content-Type"] = "application/json"
        h["Content-Digest"] = tamper.get("content_digest") or digest(body)
        h["Authorization"] = f"{scheme} {access_token}"
        if scheme == "DPoP":
            h["DPoP"] = self.dpop_proof("POST", url, access_token)
        response = self.session.post(url, data=body, headers=h, timeout=10)
        return {**capture(response), "sent": {"nonce": h["X-Nonce"], "timestamp": h["X-Timestamp"], "signature_base": "\n".join(base)}}

    # ---- reverse polling ----

    def poll(self, reference: str, access_token: str, scheme: str = "Bearer", with_certificate: bool = True) -> dict:
        target = f"/payment-orders/{quote(reference, safe='')}/status"
        url = f"{self.bank_tls_url}{target}"
        h = {"X-Client-Id": self.client_id, "X-Timestamp": timestamp(), "X-Nonce": nonce()}
        h["X-Signature"] = self.x_signature(
            ["@method: GET", f"@target-uri: {target}", *(f"{name.lower()}: {value}" for name, value in h.items()), f"content-digest: {EMPTY_DIGEST}"]
        )
        h["Authorization"] = f"{scheme} {access_token}"
        if scheme == "DPoP":
            h["DPoP"] = self.dpop_proof("GET", url, access_token)
        if with_certificate:
            response = self.session.get(url, headers=h, cert=self.cert, verify=self.ca, timeout=10)
        else:
            # A new session: requests before 2.32 (Debian 12 ships 2.28) keys its connection pools without the client
            # certificate, so on self.session this call would ride on a connection that already presented one.
            with requests.Session() as bare:
                bare.trust_env = False
                response = bare.get(url, headers=h, verify=self.ca, timeout=10)
        return capture(response)

    def poll_until_final(self, reference: str, access_token: str, scheme: str = "Bearer", timeout_s: float = 15) -> dict:
        """Contract 4.1.2: poll until SUCCESS or FAILED (the interval here is short: a sandbox scenario of 1 s)."""
        statuses = []
        deadline = time.monotonic() + timeout_s
        last = None
        while time.monotonic() < deadline:
            last = self.poll(reference, access_token, scheme)
            status = (last["json"] or {}).get("status") if last["status"] == 200 else f"HTTP {last['status']}"
            statuses.append(status)
            if last["status"] != 200 or status in ("SUCCESS", "FAILED"):
                break
            time.sleep(0.25)
        return {"statuses": statuses, "last": last}


def sample_order(reference: str, amount: str = "42.00", scenario: str = None) -> dict:
    """The create body of connector-guide.md, "The create body"."""
    order = {
        "reference": reference,
        "initiated_at": timestamp(),
        "reason": "Invoice 2026-11",
        "type": "DIRECT_DEBIT",
        "debtor": {"name": "Alice Debtor", "iban": "DE89370400440532013000"},
        "creditors": [
            {"name": "Bob Creditor", "iban": "FR1420041010050500013M02606", "bank_code": "BNPAFRPP", "amount": amount, "reason": "Invoice 2026-11"}
        ],
        "total_amount": amount,
        "currency": "EUR",
        "metadata": {"initiator": "python-interop"},
    }
    if scenario:
        order["metadata"]["sandbox_scenario"] = scenario
    return order


# ---------------------------------------------------------------------------------------------------------------
# The Connector side: receiving callbacks


class CallbackReceiver:
    """A Connector's callback endpoint on http.server, verifying as connector-guide.md step 3 says."""

    def __init__(self, client: Client, port: int, bank_client_id: str, window_s: int = 300):
        self.client = client
        self.bank_client_id = bank_client_id
        self.window_s = window_s
        self.received = []
        self.seen_nonces = {}
        self.lock = threading.Lock()
        self.arrived = threading.Condition(self.lock)
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet: stdout carries the one JSON line
                pass

            def do_GET(self):  # a pull (POLL_CRON is off in the test, but be a polite Connector): nothing to give
                self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                record = receiver.verify(self.command, self.path, self.headers, raw)
                answer = b'{"received":true}' if record["accepted"] else json.dumps({"refused": record["failures"]}).encode()
                self.send_response(200 if record["accepted"] else 401)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)
                with receiver.arrived:
                    receiver.received.append(record)
                    receiver.arrived.notify_all()

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def verify(self, method: str, target: str, headers, raw: bytes) -> dict:
        failures = []
        of_body = digest(raw)  # over the bytes as received, before any JSON parsing
        header_digest = headers.get("Content-Digest")
        if header_digest is not None and header_digest != of_body:
            failures.append("content_digest_mismatch")
        x_signature = headers.get("X-Signature") or ""
        protected = {}
        signature_ok = False
        try:
            protected_b64, payload, signature_b64 = x_signature.split(".")
            if payload != "":
                raise ValueError("the payload is not detached")
            protected = json.loads(b64url_decode(protected_b64))
            if protected.get("alg") != "ES256" or set(protected) - {"alg", "kid", "typ"}:
                raise ValueError(f"unexpected protected header {protected}")
            jwk = self.client.bank_key(protected.get("kid"))
            if jwk is None:
                raise ValueError(f"kid {protected.get('kid')!r} not in the Bank's JWKS")
            base = "\n".join(
                [
                    f"@method: {method}",
                    f"@target-uri: {target}",
                    f"x-client-id: {headers.get('X-Client-Id')}",
                    f"x-timestamp: {headers.get('X-Timestamp')}",
                    f"x-nonce: {headers.get('X-Nonce')}",
                    f"x-idempotency-key: {headers.get('X-Idempotency-Key')}",
                    f"content-digest: {of_body}",
                ]
            )
            signature = b64url_decode(signature_b64)
            if len(signature) != 64:
                raise ValueError(f"an ES256 signature is 64 bytes, not {len(signature)}")
            der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
            ec_public_key(jwk).verify(der, f"{protected_b64}.{b64url(base.encode('utf-8'))}".encode("ascii"), ec.ECDSA(hashes.SHA256()))
            signature_ok = True
        except (ValueError, InvalidSignature, KeyError) as error:
            failures.append(f"signature: {type(error).__name__}: {error}")
        if headers.get("X-Client-Id") != self.bank_client_id:
            failures.append(f"x_client_id {headers.get('X-Client-Id')!r}")
        try:
            sent = datetime.strptime(headers.get("X-Timestamp") or "", "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
            if abs(time.time() - sent.timestamp()) > self.window_s:
                failures.append("x_timestamp out of window")
        except ValueError:
            failures.append(f"x_timestamp {headers.get('X-Timestamp')!r} is not RFC 3339 UTC")
        nonce_value = headers.get("X-Nonce")
        with self.lock:
            nonce_fresh = nonce_value not in self.seen_nonces
            if signature_ok and nonce_fresh:  # spent only by a verified request
                self.seen_nonces[nonce_value] = time.time()
        if not nonce_fresh:
            failures.append("x_nonce replayed")
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
            failures.append("body is not JSON")
        return {
            "method": method,
            "target": target,
            "idempotency_key": headers.get("X-Idempotency-Key"),
            "content_type": headers.get("Content-Type"),
            "content_digest": {"header": header_digest, "of_body": of_body},
            "protected_header": protected,
            "signature_ok": signature_ok,
            "nonce_fresh": nonce_fresh,
            "failures": failures,
            "accepted": not failures,
            "body": body,
        }

    def wait_for(self, predicate, timeout_s: float) -> list:
        deadline = time.monotonic() + timeout_s
        with self.arrived:
            while True:
                matching = [record for record in self.received if predicate(record)]
                if matching or time.monotonic() >= deadline:
                    return matching
                self.arrived.wait(max(0.0, deadline - time.monotonic()))


def has_reference(record: dict, reference: str, status: str = None) -> bool:
    """A unit callback for `reference` (and `status`), or a batch holding it."""
    body = record.get("body") or {}
    items = body.get("orders", []) if isinstance(body.get("orders"), list) else [body]
    return any(item.get("reference") == reference and (status is None or item.get("status") == status) for item in items if isinstance(item, dict))


# ---------------------------------------------------------------------------------------------------------------
# The checks


def run(args) -> dict:
    client = Client(args)
    results = {"python": sys.version.split()[0], "requests": requests.__version__, "pyjwt": jwt.__version__}
    import cryptography

    results["cryptography"] = cryptography.__version__
    run_id = uuid.uuid4().hex[:10]
    receiver = CallbackReceiver(client, args.callback_port, args.bank_client_id).start() if args.callback_port and "d" in args.checks else None
    try:
        bearer = dpop_token = None
        if "a" in args.checks or "b" in args.checks or "c" in args.checks or "e" in args.checks:
            basic = attempt(client.token, "basic")
            results["token_basic"] = basic
            results["token_post"] = attempt(client.token, "post")
            results["token_dpop"] = attempt(client.token, "basic", dpop=True)
            results["dpop_jkt"] = jwk_thumbprint(client.dpop_jwk)
            for name in ("token_basic", "token_post", "token_dpop"):
                if results[name]["ok"] and results[name].get("token"):
                    results[name]["access_token"] = attempt(client.check_access_token, results[name]["token"])
            bearer = basic.get("token")
            dpop_token = results["token_dpop"].get("token")

        if "b" in args.checks:
            for scheme, token in (("Bearer", bearer), ("DPoP", dpop_token)):
                reference = f"PY-{run_id}-{scheme.upper()}"
                results[f"create_{scheme.lower()}"] = {
                    "reference": reference,
                    **attempt(client.create, sample_order(reference, scenario="SUCCESS"), token, scheme),
                }

        if "c" in args.checks:
            reference = f"PY-{run_id}-POLL"
            created = attempt(client.create, sample_order(reference, scenario="PENDING:1:SUCCESS"), bearer)
            results["poll"] = {
                "reference": reference,
                "create": created,
                "mtls_bearer": attempt(client.poll_until_final, reference, bearer),
                "mtls_dpop": attempt(lambda: client.poll(reference, dpop_token, "DPoP")),
                "without_certificate": attempt(lambda: client.poll(reference, bearer, with_certificate=False)),
            }

        if "d" in args.checks and receiver is not None:
            reference = f"PY-{run_id}-CALLBACK"
            created = attempt(client.create, sample_order(reference, scenario="ASYNC:1:SUCCESS"), bearer)
            finals = receiver.wait_for(lambda record: record["accepted"] and has_reference(record, reference, "SUCCESS"), args.callback_timeout)
            with receiver.lock:
                for_order = [record for record in receiver.received if has_reference(record, reference)]
                every = list(receiver.received)
            results["callback"] = {
                "reference": reference,
                "create": created,
                "final_received": bool(finals),
                "for_order": for_order,
                "all": [{k: r[k] for k in ("target", "idempotency_key", "signature_ok", "accepted", "failures")} for r in every],
            }

        if "e" in args.checks:
            results["negative"] = negatives(client, bearer, run_id)
    finally:
        if receiver is not None:
            receiver.stop()
    return results


def problem_shape(answer: dict) -> dict:
    """What a requests client sees of an RFC 9457 problem."""
    body = answer.get("json")
    return {
        "status": answer["status"],
        "content_type": answer["headers"].get("content-type"),
        "www_authenticate": answer["headers"].get("www-authenticate"),
        "json_parsed": isinstance(body, dict),
        "missing_members": [name for name in PROBLEM_MEMBERS if not isinstance(body, dict) or name not in body],
        "status_member_matches": isinstance(body, dict) and body.get("status") == answer["status"],
        "body": body,
    }


def negatives(client: Client, bearer: str, run_id: str) -> dict:
    out = {}
    # A Content-Digest header that does not match the body; the signature itself is over the right digest.
    answer = client.create(sample_order(f"PY-{run_id}-NEG-DIGEST"), bearer, content_digest=digest(b"not the body"))
    out["wrong_content_digest"] = problem_shape(answer)
    # A signature base over another digest than the body's (the body changed after signing): signature_mismatch.
    order = sample_order(f"PY-{run_id}-NEG-BASE")
    signed_body = json.dumps(order, separators=(",", ":")).encode()
    original = client.x_signature

    def sign_other(lines):
        return original([*lines[:-1], f"content-digest: {digest(signed_body + b' ')}"])

    client.x_signature = sign_other
    try:
        out["signed_other_digest"] = problem_shape(client.create(order, bearer))
    finally:
        client.x_signature = original
    # A stale X-Timestamp, ten minutes old.
    out["stale_timestamp"] = problem_shape(client.create(sample_order(f"PY-{run_id}-NEG-STALE"), bearer, timestamp=timestamp(-600)))
    # A nonce spent by an accepted create, sent again on another create.
    first = client.create(sample_order(f"PY-{run_id}-NEG-NONCE-1", scenario="SUCCESS"), bearer)
    out["nonce_first_status"] = first["status"]
    out["reused_nonce"] = problem_shape(client.create(sample_order(f"PY-{run_id}-NEG-NONCE-2", scenario="SUCCESS"), bearer, nonce=first["sent"]["nonce"]))
    return out


def main() -> int:
    env = os.environ.get
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bank-url", default=env("BANK_URL", "http://localhost:8080"))
    parser.add_argument("--bank-tls-url", default=env("BANK_TLS_URL", "https://localhost:8443"))
    parser.add_argument("--credentials", default=env("CREDENTIALS_FILE", "fixtures/demo-connector/credentials.json"))
    parser.add_argument("--ca", default=env("CA_FILE"))
    parser.add_argument("--cert", default=env("CLIENT_CERT_FILE"))
    parser.add_argument("--key", default=env("CLIENT_KEY_FILE"))
    parser.add_argument("--callback-port", type=int, default=int(env("CALLBACK_PORT", "0")))
    parser.add_argument("--callback-timeout", type=float, default=float(env("CALLBACK_TIMEOUT_S", "10")))
    parser.add_argument("--checks", default=env("CHECKS", "abcde"))
    parser.add_argument("--audience", default=env("TOKEN_AUDIENCE", "sandbox-bank"))
    parser.add_argument("--issuer", default=env("ISSUER", "sandbox-bank"))
    parser.add_argument("--bank-client-id", default=env("BANK_CLIENT_ID", "sandbox-bank"))
    args = parser.parse_args()
    print(json.dumps(run(args), separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
