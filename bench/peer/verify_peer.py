# The reference peer of `npm run bench` (issue 26): what a participant could write in a few dozen
# lines of Python with Debian's python3-cryptography to check ArkForge evidence items (spec 1.1
# and 2.1, as the bench mints them) before submitting. Fixed, not tuned: prereg's figures are
# ratios to this. Per file: read, json.loads, the bodies' SHA-256 over
# json.dumps(sort_keys=True, separators=(",", ":")), the chain hash recomputed, Ed25519 with the
# pinned key, and for a token `openssl ts -verify`. One JSON line per file on stdout.
#
#   python3 verify_peer.py TRUST_DIR JOBS DIR
import base64, hashlib, json, os, subprocess, sys, tempfile
from multiprocessing import Pool
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

TRUST = sys.argv[1]
POLICY = json.load(open(os.path.join(TRUST, "policy.json")))
KEY = Ed25519PublicKey.from_public_bytes(base64.urlsafe_b64decode(POLICY["arkforge_keys"][0]["public_key"][8:] + "=="))
ROOT = os.path.join(TRUST, POLICY["tsa_roots"][0])

def canon(v):
    return json.dumps(v, sort_keys=True, separators=(",", ":"))

def sha(s):
    return hashlib.sha256(s.encode()).hexdigest()

def check(path):
    with open(path, "rb") as f:
        item = json.loads(f.read())
    p = item["proof"]
    h = {k: v[7:] for k, v in p["hashes"].items()}
    ok = sha(canon(item["request"])) == h["request"] and sha(canon(item["response"])) == h["response"]
    fields = {"request_hash": h["request"], "response_hash": h["response"],
              "transaction_id": (p.get("payment") or p.get("certification_fee"))["transaction_id"],
              "timestamp": p["timestamp"], "buyer_fingerprint": p["parties"]["buyer_fingerprint"],
              "seller": p["parties"]["seller"]}
    for k, v in (("upstream_timestamp", p.get("upstream_timestamp")), ("receipt_content_hash", ((p.get("provider_payment") or {}).get("receipt_content_hash") or "").removeprefix("sha256:"))):
        if v: fields[k] = v
    if p.get("spec_version") in ("1.2", "2.1"):
        chain = sha(canon(fields))
    else:
        chain = sha("".join(fields[k] for k in ("request_hash", "response_hash", "transaction_id", "timestamp", "buyer_fingerprint", "seller", "upstream_timestamp", "receipt_content_hash") if k in fields))
    ok = ok and chain == h["chain"]
    try:
        KEY.verify(base64.urlsafe_b64decode(p["arkforge_signature"][8:] + "=="), h["chain"].encode())
    except Exception:
        ok = False
    tsr = (p.get("timestamp_authority") or {}).get("tsr_base64")
    if tsr:
        with tempfile.NamedTemporaryFile(suffix=".tsr") as t:
            t.write(base64.b64decode(tsr))
            t.flush()
            digest = hashlib.sha256(bytes.fromhex(h["chain"])).hexdigest()
            ok = ok and subprocess.run(["openssl", "ts", "-verify", "-digest", digest, "-in", t.name, "-CAfile", ROOT], capture_output=True).returncode == 0
    return json.dumps({"file": path, "status": "VERIFIED" if ok else "FAILED"})

if __name__ == "__main__":
    jobs, root = int(sys.argv[2]), sys.argv[3]
    files = sorted(os.path.join(root, n) for n in os.listdir(root) if n.endswith(".json"))
    if jobs == 1:
        lines = map(check, files)
    else:
        lines = Pool(jobs).imap(check, files, chunksize=64)
    sys.stdout.write("".join(line + "\n" for line in lines))
