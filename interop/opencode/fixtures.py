#!/usr/bin/env python3
"""Makes the fixtures of fixtures/opencode/real-VERSION/ (and of Kilo's
fixtures/kilo/real-VERSION/) from one driver run.

    python3 fixtures.py RUN.json OUTDIR

RUN.json is what `driver.mjs` (OpenCode's or Kilo's) printed. The run's home folder (a temporary
folder) becomes /home/dev everywhere: in the report, in the JSON files of
storage/ (OpenCode 1.1) and in every text column of the database
(opencode.db of 1.2 and later, kilo.db), also where OpenCode writes it without its leading slash (a session's
`path`). The database is copied with SQLite's backup, so what was still in
its write-ahead log is in the copy, and the copy is switched to a rollback
journal: it is one file, and reading it creates no -wal or -shm file beside
it. Nothing else of the data folder is kept (logs, git snapshots).
"""

import json
import os
import shutil
import sqlite3
import sys

HOME = '/home/dev'


def scrub_text(text, root):
    return text.replace(root, HOME).replace(root.lstrip('/'), HOME.lstrip('/'))


def copy_db(src, dst, root):
    if os.path.exists(dst):
        os.remove(dst)
    source = sqlite3.connect(f'file:{src}?mode=ro', uri=True)
    target = sqlite3.connect(dst)
    source.backup(target)
    source.close()
    tables = [row[0] for row in target.execute("select name from sqlite_master where type = 'table'")]
    for table in tables:
        columns = [row[1] for row in target.execute(f'pragma table_info("{table}")') if row[2].lower() == 'text']
        for column in columns:
            target.execute(
                f'update "{table}" set "{column}" = replace(replace("{column}", ?, ?), ?, ?) where "{column}" like ?',
                (root, HOME, root.lstrip('/'), HOME.lstrip('/'), f'%{root.lstrip("/")}%'),
            )
    target.commit()
    target.execute('pragma journal_mode = delete')
    target.execute('vacuum')
    target.close()


def copy_storage(src, dst, root):
    if os.path.exists(dst):
        shutil.rmtree(dst)
    for folder, _, files in os.walk(src):
        for name in files:
            path = os.path.join(folder, name)
            out = os.path.join(dst, os.path.relpath(path, src))
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with open(path, encoding='utf-8') as f:
                text = f.read()
            with open(out, 'w', encoding='utf-8') as f:
                f.write(scrub_text(text, root))


def main():
    run_path, out = sys.argv[1], sys.argv[2]
    with open(run_path, encoding='utf-8') as f:
        run = json.load(f)
    if run['unexpectedRequests']:
        sys.exit(f"{run_path}: {run['unexpectedRequests']} requests the fake API had no answer for")
    root = run['home'].rstrip('/')
    os.makedirs(out, exist_ok=True)
    data = run['dataDir']
    database = os.path.basename(run['database'])
    if os.path.exists(os.path.join(data, database)):
        copy_db(os.path.join(data, database), os.path.join(out, database), root)
    if os.path.isdir(os.path.join(data, 'storage', 'session')):
        copy_storage(os.path.join(data, 'storage'), os.path.join(out, 'storage'), root)
    # The report, less what only the run needs (each run's event names and
    # every request are in RUN.json).
    version = next(key for key in run if key.endswith('Version'))
    scenario = {key: run[key] for key in (version, 'home', 'dataDir', 'projects', 'sessions')}
    with open(os.path.join(out, 'scenario.json'), 'w', encoding='utf-8') as f:
        f.write(scrub_text(json.dumps(scenario, indent=2, ensure_ascii=False), root) + '\n')


if __name__ == '__main__':
    main()
