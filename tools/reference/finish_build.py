"""The last step of a reference code's build (tools/reference/NAME/build.sh): writes TMP/build.json,
what the build was made from, with the time of the build, and puts the finished folder TMP in
place of DEST whole, so that a build that fails leaves none and requirements.reference_build
finds only whole ones.
Usage: python3 tools/reference/finish_build.py TMP DEST KEY=VALUE...
       (files.NAME=PATH: the files a run needs, relative to DEST; an empty VALUE is null)"""
import datetime
import json
import shutil
import sys
from pathlib import Path

tmp, dest = Path(sys.argv[1]), Path(sys.argv[2])
info = {"files": {}}
for item in sys.argv[3:]:
    key, _, value = item.partition("=")
    if key.startswith("files."):
        info["files"][key[len("files."):]] = value
    else:
        info[key] = value or None
info["built_utc"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
(tmp / "build.json").write_text(json.dumps(info, indent=2) + "\n")
shutil.rmtree(dest, ignore_errors=True)
tmp.rename(dest)
