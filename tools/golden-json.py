#!/usr/bin/env python3
"""Writes fixtures/json/vectors.json: golden canonical texts, digests and float reprs made by Python.

The rules are those of the Tool Result v2 reference: its _canonical_json is json.dumps with
sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False; its loader refuses
duplicate keys, non-finite constants, more than 32 nested containers and invalid UTF-8.
Run from the repository root: python3 tools/golden-json.py
Python, not TypeScript: the vectors must come from the reference's own json module, never from toolgate's encoder.
"""
import hashlib, json, math, random, struct

MAX_DEPTH = 32

def canonical(v):
    return json.dumps(v, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False)

def unique(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise ValueError("duplicate " + k)
        out[k] = v
    return out

def reject_constant(c):
    raise ValueError("constant " + c)

def prescan(text):
    depth = 0; in_s = False; esc = False
    for ch in text:
        if in_s:
            if esc: esc = False
            elif ch == "\\": esc = True
            elif ch == '"': in_s = False
            continue
        if ch == '"': in_s = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH: raise ValueError("deep")
        elif ch in "]}": depth = max(0, depth - 1)

def domain(v, depth=0):
    if depth > MAX_DEPTH: raise ValueError("depth")
    if v is None or type(v) is bool: return
    if type(v) is int:
        if abs(v) > 9007199254740991: raise ValueError("int")
        return
    if type(v) is float:
        if not math.isfinite(v): raise ValueError("float")
        return
    if isinstance(v, str):
        if len(v) > 65536: raise ValueError("long")
        v.encode("utf-8"); return
    if isinstance(v, list):
        if len(v) > 1024: raise ValueError("array")
        for x in v: domain(x, depth + 1)
        return
    if isinstance(v, dict):
        if len(v) > 1024: raise ValueError("object")
        for k, x in v.items():
            domain(k, depth + 1); domain(x, depth + 1)
        return
    raise ValueError("type")

def accepts(raw: bytes) -> bool:
    if len(raw) > 65536: return False
    try:
        text = raw.decode("utf-8")
        prescan(text)
        v = json.loads(text, object_pairs_hook=unique, parse_constant=reject_constant)
        domain(v)
        canonical(v).encode("utf-8")
        return True
    except (ValueError, UnicodeError, RecursionError):
        return False

rng = random.Random(20261129)
KEY_CHARS = ["a", "b", "Z", "9", "10", "_", "\u00e9", "\uff61", "\ue000", "\uffff", "\U0001F600", "\U00010000",
             "\u2028", "\x7f", "\x1f", "\n", '"', "\\", "/", "__proto__", "constructor", " ", "\ufeff"]

def rand_float():
    pick = rng.random()
    if pick < 0.3:
        while True:
            x = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
            if math.isfinite(x): return x
    if pick < 0.5: return float(rng.randint(-10**6, 10**6))
    if pick < 0.7: return rng.choice([1e16, 1e15, 1e-4, 1e-5, 1e-7, 5e-324, 1.7976931348623157e308, -0.0, 0.0,
                                      9007199254740992.0, 123456789012345678.0, 1e21, 1e22, 0.1, 1.5e300,
                                      1551563132437320.25, -101065508335255.125, 2.5, 100.0])
    return rng.uniform(-1, 1) * 10 ** rng.randint(-30, 30)

def rand_str(n=6):
    return "".join(rng.choice(KEY_CHARS) for _ in range(rng.randint(0, n)))

def rand_value(depth=0):
    r = rng.random()
    if depth > 4 or r < 0.45:
        kind = rng.randint(0, 5)
        if kind == 0: return rand_float()
        if kind == 1: return rng.randint(-9007199254740991, 9007199254740991) if rng.random() < 0.5 else rng.randint(-1000, 1000)
        if kind == 2: return rand_str(10)
        if kind == 3: return rng.choice([True, False])
        if kind == 4: return None
        return rand_float()
    if r < 0.7:
        return [rand_value(depth + 1) for _ in range(rng.randint(0, 5))]
    return {rand_str(4): rand_value(depth + 1) for _ in range(rng.randint(0, 6))}

documents = []
fixed = [{"\uff61": 1, "\U0001F600": 2}, {"\ue000": 1, "\U00010000": 2}, {"a": 3, "9": 2, "10": 1},
         [1, 1.0, 1e2, -0, -0.0, 1e15, 1e16, 9007199254740992.0, 123456789012345678.0, 0.0001, 0.00001, 1e-7,
          5e-324, 1.7976931348623157e308, 1e21, 1e22, 0.1, 1.5e300],
         {"__proto__": {"constructor": {"prototype": 1}}}, "\u2028\u2029\ufeff\uffff\x7f/\x0b\x1f\b\t\n\f\r",
         {"s": "\U0001F600" * 65536}]
for v in fixed:
    documents.append(v)
for _ in range(600):
    documents.append(rand_value())

vectors = []
for v in documents:
    text = json.dumps(v, ensure_ascii=rng.random() < 0.3, indent=rng.choice([None, 1]))
    c = canonical(v)
    vectors.append({"input": text, "canonical": c, "sha256": hashlib.sha256(c.encode("utf-8")).hexdigest()})

floats = []
for _ in range(3000):
    x = rand_float()
    lexeme = rng.choice(["%.17g", "%.16e", "%r", "%.20e"])
    text = (lexeme % x) if lexeme != "%r" else repr(x)
    if "e" not in text and "." not in text and "inf" not in text and "nan" not in text:
        text += ".0"
    floats.append({"lexeme": text, "repr": repr(float(text))})

def reject_cases():
    cases = {
        "duplicate at root": b'{"a":1,"a":1}',
        "escaped duplicate": b'{"a":1,"\\u0061":2}',
        "nested duplicate": b'{"x":[{"k":{"d":1,"d":1}}]}',
        "NaN": b'{"a":NaN}', "Infinity": b'[Infinity]', "-Infinity": b'[-Infinity]',
        "overflow": b'[1e400]', "big int": b'[9007199254740992]', "big negative int": b'[-9007199254740992]',
        "bom": b'\xef\xbb\xbf{}', "invalid byte": b'["\xff"]', "overlong": b'["\xc0\xaf"]',
        "encoded surrogate": b'["\xed\xa0\x80"]', "above U+10FFFF": b'["\xf4\x90\x80\x80"]',
        "lone high surrogate": b'["\\ud800"]', "lone low surrogate key": b'{"\\udc00":1}',
        "33 levels": b'[' * 33 + b']' * 33, "depth bomb": b'[' * 100000 + b']' * 100000,
        "trailing comma": b'[1,]', "leading zero": b'[01]', "raw tab": b'["\t"]', "comment": b'[1]//',
        "single quotes": b"['a']", "trailing data": b'{} {}', "empty": b'', "plus number": b'[+1]',
        "bad escape": b'["\\x"]', "short unicode escape": b'["\\u12"]', "too large": b'[' + b'1,' * 32768 + b'1]',
        "long string": b'["' + b'a' * 65537 + b'"]', "astral string too long": ('["' + "\U0001F600" * 65537 + '"]').encode(),
        "array too long": b'[' + b'0,' * 1024 + b'0]', "4301 digits": b'[' + b'1' * 4301 + b']',
        "vertical tab space": b'[\x0b1]', "dot without digits": b'[1.]', "exponent without digits": b'[1e]',
    }
    accepted = {
        "32 levels": b'[' * 32 + b']' * 32, "proto key": b'{"__proto__":1}', "pair escape": b'["\\ud83d\\ude00"]',
        "long string at limit": b'["' + b'a' * 65536 + b'"]', "astral at limit": ('["' + "\U0001F600" * 16000 + '"]').encode(),
        "array at limit": b'[' + b'0,' * 1023 + b'0]', "max int": b'[9007199254740991,-9007199254740991]',
        "negative zero": b'[-0,-0.0]', "whitespace": b' \t\r\n{ "a" : [ 1 , 2 ] } \n',
    }
    out = []
    for name, raw in list(cases.items()) + list(accepted.items()):
        out.append({"name": name, "input_hex": raw.hex() if len(raw) < 2048 else None,
                    "input_repeat": None, "accepted": accepts(raw)})
    return out, cases, accepted

rejects, cases, accepted = reject_cases()

with open("fixtures/json/vectors.json", "w", encoding="utf-8") as f:
    json.dump({"documents": vectors, "floats": floats}, f, ensure_ascii=False, indent=0)
    f.write("\n")
with open("fixtures/json/acceptance.json", "w", encoding="utf-8") as f:
    json.dump([{"name": r["name"], "accepted": r["accepted"]} for r in rejects], f, indent=1)
    f.write("\n")
print(len(vectors), "documents,", len(floats), "floats,", len(rejects), "acceptance cases")
