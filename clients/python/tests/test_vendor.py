"""The vendored framework sources are verbatim copies of the commits they cite (vendor/check_vendor.py),
and the check fails on an edited copy."""
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vendor"))
import check_vendor  # noqa: E402


class VendorTest(unittest.TestCase):
    def test_every_vendored_file_is_verbatim(self):
        folders = check_vendor.folders()
        for folder in folders:
            self.assertEqual(check_vendor.check_folder(folder), [], folder)

    def test_an_edited_file_fails(self):
        folders = check_vendor.folders()
        if not folders:
            self.skipTest("nothing vendored yet")
        with tempfile.TemporaryDirectory() as tmp:
            copy = os.path.join(tmp, "fw")
            shutil.copytree(folders[0], copy)
            import json

            with open(os.path.join(copy, "VENDOR.json"), encoding="utf-8") as f:
                files = json.load(f)["files"]
            first = sorted(files)[0]
            with open(os.path.join(copy, first), "ab") as f:
                f.write(b"\n# edited\n")
            problems = check_vendor.check_folder(copy)
            self.assertEqual(len(problems), 1)
            self.assertIn("not a verbatim copy", problems[0])

    def test_blob_id_is_gits(self):
        # `printf 'hello\n' | git hash-object --stdin`
        self.assertEqual(check_vendor.blob_id(b"hello\n"), "ce013625030ba8dba906f756967f9e9ca394464a")


if __name__ == "__main__":
    unittest.main()
