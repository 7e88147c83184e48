"""NFD's expression test tables as data for NfdExpressionTablesTest.

Usage: git -C <node-feature-discovery> show v0.19.0:pkg/apis/nfd/nodefeaturerule/expression_test.go > expr_test.go
       python3 convert-expression-tables.py expr_test.go expression-tables-v0.19.0.json
"""
import re, json, sys
src = open(sys.argv[1]).read()
def func_body(name):
    i = src.index('func ' + name + '(')
    j = src.index('\nfunc ', i + 1) if '\nfunc ' in src[i+1:] else len(src)
    return src[i:j]
def parse_strs(s):
    return re.findall(r'"((?:[^"\\]|\\.)*)"', s)
def parse_case(line):
    c = {}
    m = re.search(r'name: "([^"]*)"', line); c['name'] = m.group(1)
    m = re.search(r'op: (nfdv1alpha1\.Match(\w+)|"([^"]*)")', line)
    c['op'] = m.group(2) if m.group(2) else m.group(3)
    m = re.search(r'values: V\{([^}]*)\}', line); c['values'] = parse_strs(m.group(1)) if m else []
    m = re.search(r'valueType: "([^"]*)"', line); c['type'] = m.group(1) if m else ""
    m = re.search(r'key: "([^"]*)"', line); c['key'] = m.group(1) if m else ""
    m = None
    if 'input: I{' in line:
        start = line.index('input: I{') + len('input: I{')
        depth, k = 1, start
        while depth:
            depth += {'{': 1, '}': -1}.get(line[k], 0)
            k += 1
        m = line[start:k - 1]
    if m is not None:
        body = m
        pairs = re.findall(r'"([^"]*)": ("([^"]*)"|\{\})', body)
        c['input'] = {k: (v3 if v2 != '{}' else None) for k, v2, v3 in pairs}
    elif re.search(r'input: nil', line) or 'input:' not in line:
        c['input'] = None
    else:
        m = re.search(r'input: ("([^"]*)"|(-?\d+)|(true|false))', line)
        c['input'] = m.group(2) if m.group(2) is not None else m.group(3) if m.group(3) is not None else m.group(4)
    m = re.search(r'valid: (true|false)', line); c['valid'] = (m.group(1) == 'true') if m else False
    m = re.search(r'result: assert\.(True|False)', line); c['result'] = (m.group(1) == 'True') if m else None
    m = re.search(r'err: assert\.(Nil|NotNil)', line); c['err'] = (m.group(1) == 'NotNil') if m else None
    return c
out = []
for fn, kind in [('TestEvaluateMatchExpression', 'evaluate'), ('TestEvaluateMatchExpressionKeys', 'keys'),
                 ('TestEvaluateMatchExpressionValues', 'values')]:
    body = func_body(fn)
    # TestEvaluateMatchExpression has two tables: results, then errors
    tables = re.split(r'tcs :?= \[\]TC\{', body)
    for ti, t in enumerate(tables[1:]):
        for line in t.split('\n'):
            line = line.strip()
            if line.startswith('{name:'):
                c = parse_case(line)
                c['kind'] = kind if not (kind == 'evaluate' and ti == 1) else 'evaluate-error'
                if c['kind'] == 'evaluate-error':
                    c['valid'] = True; c['result'] = False; c['err'] = True
                out.append(c)
print(len(out))
hdr = {"source": "kubernetes-sigs/node-feature-discovery v0.19.0, pkg/apis/nfd/nodefeaturerule/expression_test.go",
       "tests": "TestEvaluateMatchExpression (kind evaluate, evaluate-error), TestEvaluateMatchExpressionKeys (keys), TestEvaluateMatchExpressionValues (values)",
       "note": "the tables' cases as data, written by convert-expression-tables.py beside this file"}
json.dump({"about": hdr, "cases": out}, open(sys.argv[2], 'w'), indent=1)
