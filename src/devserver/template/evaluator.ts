import { TemplateError } from './errors';
import { FunctionCallError, type FunctionContext, type ParamType, type TemplateFunction } from './functions';
import type { Position } from './lexer';
import { RenderBudget, TEMPLATE_LIMITS, TemplateLimitError } from './limits';
import type { Command, ControlNode, Operand, Pipeline, TemplateNode } from './parser';
import { goTypeName, isPlainObject, isTruthy, NO_VALUE, printValue, TemplateBytes, type TemplateValue } from './values';

export interface EvaluationOptions extends FunctionContext {
  functions: ReadonlyMap<string, TemplateFunction>;
  /** `error`: a missing field fails the render (Go's missingkey=error); `default`: it is `<no value>`. */
  missingKey: 'default' | 'error';
}

/** Marks "no piped value" apart from a piped missing field. */
const NOTHING_PIPED: unique symbol = Symbol('nothing piped');

/** Executes a parsed template against `data`, writing what Go's text/template would. */
export function evaluateTemplate(nodes: TemplateNode[], data: TemplateValue, options: EvaluationOptions): string {
  return new Evaluator(data, options).run(nodes, data);
}

class Evaluator {
  private readonly budget = new RenderBudget();

  constructor(
    private readonly root: TemplateValue,
    private readonly options: EvaluationOptions,
  ) {}

  run(nodes: TemplateNode[], dot: TemplateValue): string {
    let out = '';
    for (const node of nodes) {
      this.budget.step();
      switch (node.kind) {
        case 'text':
          out += node.text;
          break;
        case 'action':
          out += printValue(this.pipeline(node.pipeline, dot));
          break;
        case 'if': {
          const value = this.pipeline(node.pipeline, dot);
          out += this.run(isTruthy(value) ? node.body : node.elseBody, dot);
          break;
        }
        case 'with': {
          const value = this.pipeline(node.pipeline, dot);
          out += isTruthy(value) ? this.run(node.body, value) : this.run(node.elseBody, dot);
          break;
        }
        case 'range':
          out += this.range(node, dot);
          break;
      }
      this.budget.checkSize(out.length);
    }
    return out;
  }

  private range(node: ControlNode, dot: TemplateValue): string {
    const value = this.pipeline(node.pipeline, dot);
    let items: TemplateValue[];
    if (Array.isArray(value)) items = value;
    else if (isPlainObject(value)) items = Object.keys(value).sort().map((k) => value[k]);
    else if (typeof value === 'number' && Number.isInteger(value)) {
      if (value > TEMPLATE_LIMITS.maxSteps) {
        throw new TemplateLimitError(`template: range over ${value} items; at most ${TEMPLATE_LIMITS.maxSteps} steps are allowed`);
      }
      items = Array.from({ length: Math.max(0, value) }, (_, i) => i);
    }
    else if (value === NO_VALUE || value === null) items = [];
    else this.fail(node.pos, node.pipeline, `range can't iterate over ${printValue(value)}`);
    if (items.length === 0) return this.run(node.elseBody, dot);
    let out = '';
    for (const item of items) {
      this.budget.step();
      out += this.run(node.body, item);
      this.budget.checkSize(out.length);
    }
    return out;
  }

  private fail(pos: Position, pipeline: Pipeline, message: string): never {
    throw new TemplateError(`template: ${pos.line}:${pos.col}: executing at <${pipeline.text}>: ${message}`);
  }

  private pipeline(pipeline: Pipeline, dot: TemplateValue): TemplateValue {
    let value: TemplateValue | typeof NOTHING_PIPED = NOTHING_PIPED;
    for (const command of pipeline.commands) value = this.command(command, pipeline, dot, value);
    return value;
  }

  private command(
    command: Command,
    pipeline: Pipeline,
    dot: TemplateValue,
    piped: TemplateValue | typeof NOTHING_PIPED,
  ): TemplateValue {
    const [head, ...rest] = command.operands;
    if (head.kind === 'function') {
      const args = rest.map((operand) => this.argument(operand, pipeline, dot));
      if (piped !== NOTHING_PIPED) args.push(piped);
      return this.call(head.name, head.pos, pipeline, args);
    }
    if (rest.length > 0 || piped !== NOTHING_PIPED) {
      this.fail(head.pos, pipeline, `can't give argument to non-function ${describeOperand(head)}`);
    }
    return this.argument(head, pipeline, dot);
  }

  /** The value of an operand; a function name in argument position is called without arguments, like Go. */
  private argument(operand: Operand, pipeline: Pipeline, dot: TemplateValue): TemplateValue {
    switch (operand.kind) {
      case 'dot':
        return dot;
      case 'field':
        return this.field(dot, operand.names, operand.pos, pipeline);
      case 'root':
        return this.field(this.root, operand.names, operand.pos, pipeline);
      case 'string':
      case 'number':
      case 'bool':
        return operand.value;
      case 'nil':
        return null;
      case 'pipeline':
        return this.pipeline(operand.pipeline, dot);
      case 'function':
        return this.call(operand.name, operand.pos, pipeline, []);
    }
  }

  private field(receiver: TemplateValue, names: string[], pos: Position, pipeline: Pipeline): TemplateValue {
    let current = receiver;
    for (const name of names) {
      if (current === NO_VALUE) {
        if (this.options.missingKey === 'error') this.fail(pos, pipeline, `nil data; no entry for key "${name}"`);
        return NO_VALUE;
      }
      if (current === null || current === undefined) this.fail(pos, pipeline, `nil pointer evaluating interface {}.${name}`);
      if (!isPlainObject(current)) {
        this.fail(pos, pipeline, `can't evaluate field ${name} in type ${goTypeName(current)}`);
      }
      if (!Object.prototype.hasOwnProperty.call(current, name) || current[name] === undefined) {
        if (this.options.missingKey === 'error') this.fail(pos, pipeline, `map has no entry for key "${name}"`);
        current = NO_VALUE;
      } else current = current[name];
    }
    return current;
  }

  private call(name: string, pos: Position, pipeline: Pipeline, args: TemplateValue[]): TemplateValue {
    const fn = this.options.functions.get(name);
    // The parser already refuses unknown functions; this guards evaluation of a tree built elsewhere.
    if (!fn) this.fail(pos, pipeline, `function "${name}" not defined`);
    const fixed = fn.params.length;
    if (fn.variadic ? args.length < fixed : args.length !== fixed) {
      const want = fn.variadic ? `at least ${fixed}` : String(fixed);
      this.fail(pos, pipeline, `wrong number of args for ${name}: want ${want} got ${args.length}`);
    }
    const converted = args.map((arg, i) => {
      const type = i < fixed ? fn.params[i] : (fn.variadic as ParamType);
      const result = convertArgument(arg, type);
      if (result instanceof ArgumentMismatch) this.fail(pos, pipeline, result.message);
      return result;
    });
    this.budget.step();
    try {
      const result = fn.call(converted, this.options);
      if (typeof result === 'string') this.budget.checkSize(result.length);
      else if (result instanceof TemplateBytes) this.budget.checkSize(result.bytes.length);
      return result;
    } catch (error) {
      if (error instanceof FunctionCallError) this.fail(pos, pipeline, `error calling ${name}: ${error.message}`);
      throw error;
    }
  }
}

/** Why an argument does not fit a parameter's type (Go reports these without "error calling"). */
class ArgumentMismatch {
  constructor(readonly message: string) {}
}

/** Go's conversion of an argument to a typed parameter. */
function convertArgument(value: TemplateValue, type: ParamType): unknown {
  if (type === 'any') return value;
  const expected = type === 'int' ? 'int' : 'string';
  if (value === NO_VALUE || value === null || value === undefined) {
    return new ArgumentMismatch(`invalid value; expected ${expected}`);
  }
  if (type === 'int') {
    if (typeof value === 'number' && Number.isInteger(value)) return value;
    return new ArgumentMismatch(`wrong type for value; expected int; got ${goTypeName(value)}`);
  }
  if (typeof value === 'string') return type === 'bytes' ? Buffer.from(value, 'utf8') : value;
  if (value instanceof TemplateBytes) return type === 'bytes' ? value.bytes : value.toString();
  return new ArgumentMismatch(`wrong type for value; expected string; got ${goTypeName(value)}`);
}

function describeOperand(operand: Operand): string {
  switch (operand.kind) {
    case 'field':
      return `.${operand.names.join('.')}`;
    case 'root':
      return operand.names.length ? `$.${operand.names.join('.')}` : '$';
    case 'dot':
      return '.';
    case 'string':
      return JSON.stringify(operand.value);
    case 'number':
      return operand.text;
    case 'bool':
      return String(operand.value);
    case 'nil':
      return 'nil';
    case 'pipeline':
      return `(${operand.pipeline.text})`;
    case 'function':
      return operand.name;
  }
}
