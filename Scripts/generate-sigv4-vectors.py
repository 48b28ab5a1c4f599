#!/usr/bin/env python3
"""Known-answer vectors for the AppSync Events SigV4 signer (AppSyncSigV4Tests.swift).

The expected values come from botocore's SigV4Auth, an implementation independent of
Switchboard's, and from Python's json.dumps for the compact request bodies:

    pip install botocore
    python3 Scripts/generate-sigv4-vectors.py   # needs: pip install botocore

The output is the Swift source of the `Vectors` enum that the tests embed. botocore takes the
signing time from `botocore.auth.get_current_datetime()` (older releases used
`datetime.datetime.utcnow()`); the generator patches that function and then checks that the
timestamp botocore recorded is the one intended, so a botocore that reads the clock some other
way fails loudly instead of producing vectors for the wrong date.
"""

import datetime
import json
import unicodedata
from unittest import mock

import botocore
import botocore.auth
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

ACCESS_KEY_ID = "AKIDEXAMPLE"
SECRET_ACCESS_KEY = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
SESSION_TOKEN = "IQoJb3JpZ2luX2VjEXAMPLE//session+token/AQoDYXdzEJr==="

# The headers AppSync's clients send with every signed message, besides host and the date.
FIXED_HEADERS = {
    "accept": "application/json, text/javascript",
    "content-encoding": "amz-1.0",
    "content-type": "application/json; charset=UTF-8",
}

# botocore's header names (lower-cased) -> the spelling AppSync's clients use in the
# authorization object, which is what the Swift signer returns.
APPSYNC_HEADER_NAMES = {
    "accept": "accept",
    "content-encoding": "content-encoding",
    "content-type": "content-type",
    "host": "host",
    "x-amz-date": "x-amz-date",
    "x-amz-security-token": "X-Amz-Security-Token",
    "authorization": "Authorization",
}


def compact_body(channel, events):
    """The body AppSync signs: compact JSON, channel before events, non-ASCII kept raw."""
    obj = {}
    if channel is not None:
        obj["channel"] = channel
    if events is not None:
        obj["events"] = events
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def sign(region, host, body, session_token, when):
    """Signs POST https://<host>/event with botocore; returns the pieces the Swift tests check."""
    request = AWSRequest(
        method="POST",
        url=f"https://{host}/event",
        data=body.encode("utf-8"),
        headers=dict(FIXED_HEADERS),
    )
    credentials = Credentials(ACCESS_KEY_ID, SECRET_ACCESS_KEY, session_token)
    auth = SigV4Auth(credentials, "appsync", region)
    # Record the intermediate values add_auth computes. (Recomputing them afterwards would not
    # do: the Authorization header is on the request by then and would be signed too.)
    recorded = {}
    for step in ("canonical_request", "string_to_sign", "signature"):
        original = getattr(auth, step)

        def recording(*args, _step=step, _original=original):
            recorded[_step] = _original(*args)
            return recorded[_step]

        setattr(auth, step, recording)
    with mock.patch.object(botocore.auth, "get_current_datetime", return_value=when):
        auth.add_auth(request)
    timestamp = when.strftime("%Y%m%dT%H%M%SZ")
    assert request.context["timestamp"] == timestamp, request.context["timestamp"]
    canonical_request = recorded["canonical_request"]
    string_to_sign = recorded["string_to_sign"]
    signature = recorded["signature"]

    headers = {name.lower(): value for name, value in request.headers.items()}
    # botocore leaves `host` to the HTTP client but signs it; AppSync wants it in the object.
    headers["host"] = canonical_request.split("\nhost:", 1)[1].split("\n", 1)[0]
    assert headers["authorization"].endswith(f"Signature={signature}")
    assert set(headers) <= set(APPSYNC_HEADER_NAMES), sorted(headers)
    return {
        "canonical_request": canonical_request,
        "string_to_sign": string_to_sign,
        "signature": signature,
        "headers": {APPSYNC_HEADER_NAMES[name]: value for name, value in headers.items()},
    }


def swift_literal(text):
    """A Swift string literal for `text`: escapes quotes, backslashes and invisible characters."""
    out = []
    for ch in text:
        code = ord(ch)
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch != " " and unicodedata.category(ch)[0] in "CZM":
            # Control, format, separator (other than space) and combining characters are
            # invisible or merge with their neighbours in source code: spell them out.
            out.append("\\u{%X}" % code)
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def swift_optional(text):
    return "nil" if text is None else swift_literal(text)


def swift_array(items, indent):
    if items is None:
        return "nil"
    if not items:
        return "[]"
    pad = " " * indent
    lines = "".join(f"{pad}    {swift_literal(item)},\n" for item in items)
    return f"[\n{lines}{pad}]"


def swift_dictionary(mapping, indent):
    pad = " " * indent
    lines = "".join(
        f"{pad}    {swift_literal(key)}: {swift_literal(mapping[key])},\n" for key in sorted(mapping)
    )
    return f"[\n{lines}{pad}]"


def utc(*parts, microsecond=0):
    # botocore works on naive UTC datetimes (get_current_datetime strips tzinfo).
    return datetime.datetime(*parts, microsecond=microsecond)


PUBLISH_EVENTS = [
    json.dumps(
        {"text": '<b>Fish & Chips</b> a/b "quoted" Grüße 日本 🚀'},
        separators=(",", ":"),
        ensure_ascii=False,
    ),
    json.dumps({"a": 1}, separators=(",", ":")),
    '"plain string event"',
]

SIGNING_CASES = [
    # name, region, host, channel, events, session token, signing time
    ("connect", "eu-west-1", "abcdefghijklmnopqrstuvwxyz.appsync-api.eu-west-1.amazonaws.com",
     None, None, None, utc(2026, 11, 23, 12, 34, 56)),
    ("subscribe with session token", "eu-west-1", "abcdefghijklmnopqrstuvwxyz.appsync-api.eu-west-1.amazonaws.com",
     "/default/chat/room-1", None, SESSION_TOKEN, utc(2026, 11, 23, 12, 34, 56)),
    ("publish with markup and non-ASCII", "us-east-1", "example1234567890.appsync-api.us-east-1.amazonaws.com",
     "/default/news", PUBLISH_EVENTS, None, utc(2026, 11, 23, 12, 34, 56)),
    # Zero-padded date fields, a fractional second (truncated, not rounded) and a session token.
    ("connect, padded date and fraction", "ap-southeast-2", "events.example.com",
     None, None, SESSION_TOKEN, utc(2026, 1, 5, 3, 4, 5, microsecond=999_000)),
]

BODY_CASES = [
    (None, None),
    ("/ns/a", None),
    ("/ns/a", []),
    ("/ns/a", ['{"a":1}']),
    (None, ["x"]),
    ("/ns/<script>&amp;", ["<>&", "a/b/c", 'say "hi"', "back\\slash"]),
    ("/ns/grüße", ["Grüße 日本 🚀", "e\u0301 ﬁ \u00a0", "\u2028\u2029"]),
    ("/ns/ctl", ["tab\there", "line\nfeed", "crlf\r\n", "\b\f", "\x00\x01\x1f", "del\x7f"]),
]


def main():
    print(f"    // Generated by Scripts/generate-sigv4-vectors.py with botocore {botocore.__version__}.")
    print("    static let signing: [SigningVector] = [")
    for name, region, host, channel, events, token, when in SIGNING_CASES:
        body = compact_body(channel, events)
        result = sign(region, host, body, token, when)
        epoch = when.replace(tzinfo=datetime.timezone.utc).timestamp()
        print("        SigningVector(")
        print(f"            name: {swift_literal(name)},")
        print(f"            region: {swift_literal(region)},")
        print(f"            host: {swift_literal(host)},")
        print(f"            channel: {swift_optional(channel)},")
        print(f"            events: {swift_array(events, 12)},")
        print(f"            body: {swift_literal(body)},")
        print(f"            sessionToken: {swift_optional(token)},")
        print(f"            secondsSince1970: {epoch!r},")
        print(f"            canonicalRequest: {swift_array(result['canonical_request'].split(chr(10)), 12)},")
        print(f"            stringToSign: {swift_array(result['string_to_sign'].split(chr(10)), 12)},")
        print(f"            signature: {swift_literal(result['signature'])},")
        print(f"            headers: {swift_dictionary(result['headers'], 12)}")
        print("        ),")
    print("    ]")
    print()
    print("    static let bodies: [BodyVector] = [")
    for channel, events in BODY_CASES:
        print("        BodyVector(")
        print(f"            channel: {swift_optional(channel)},")
        print(f"            events: {swift_array(events, 12)},")
        print(f"            json: {swift_literal(compact_body(channel, events))}")
        print("        ),")
    print("    ]")


if __name__ == "__main__":
    main()
