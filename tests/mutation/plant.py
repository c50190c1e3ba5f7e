"""The mutation runner's hands (tests/mutation/run.sh): list the faults of faults.py, plant one,
name its killers.

  plant.py --ids                  every fault's id, one a line
  plant.py --killers ID           the fault's killer tests, one a line
  plant.py --apply ID WORKDIR     replace the fault's text, exactly once, keeping the original
                                  file as WORKDIR/<n>.orig (and its path in WORKDIR/<n>.path)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from faults import FAULTS  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))


def fault(fid):
    for f in FAULTS:
        if f['id'] == fid:
            return f
    sys.exit('no fault %r' % fid)


def main(argv):
    if argv[:1] == ['--ids']:
        for f in FAULTS:
            print(f['id'])
    elif argv[:1] == ['--killers'] and len(argv) == 2:
        for k in fault(argv[1])['killers']:
            print(k)
    elif argv[:1] == ['--apply'] and len(argv) == 3:
        f = fault(argv[1])
        path = os.path.join(ROOT, f['file'])
        with open(path) as fh:
            text = fh.read()
        count = text.count(f['find'])
        if count != 1:
            sys.exit('%s: the text to replace occurs %d times in %s' % (f['id'], count, f['file']))
        k = len([x for x in os.listdir(argv[2]) if x.endswith('.orig')])
        with open(os.path.join(argv[2], '%d.orig' % k), 'w') as fh:
            fh.write(text)
        with open(os.path.join(argv[2], '%d.path' % k), 'w') as fh:
            fh.write(path)
        with open(path, 'w') as fh:
            fh.write(text.replace(f['find'], f['replace'], 1))
        print('planted %s in %s' % (f['id'], f['file']))
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main(sys.argv[1:])
