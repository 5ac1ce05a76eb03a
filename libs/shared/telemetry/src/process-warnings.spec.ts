import { EventEmitter } from 'node:events';
import type { LoggerService } from '@nestjs/common';
import { ignoreProcessWarnings, logProcessWarnings, printProcessWarningsFiltered } from './process-warnings';

function recordingLogger(): LoggerService & { lines: Array<{ message: string; context: string }> } {
  const lines: Array<{ message: string; context: string }> = [];
  return { lines, log: () => undefined, error: () => undefined, warn: (message: string, context: string) => lines.push({ message, context }) };
}

describe('logProcessWarnings', () => {
  it("replaces Node's own warning printer with a warn line of the service's log", () => {
    const target = new EventEmitter();
    const nodePrinter = jest.fn();
    target.on('warning', nodePrinter);
    const logger = recordingLogger();
    logProcessWarnings(logger, target);
    const warning = Object.assign(new Error('Buffer() is deprecated'), { name: 'DeprecationWarning' });
    target.emit('warning', warning);
    expect(nodePrinter).not.toHaveBeenCalled();
    expect(logger.lines).toEqual([{ message: 'DeprecationWarning: Buffer() is deprecated', context: 'Process' }]);
  });

  it('drops only the warnings a registered filter matches', () => {
    const target = new EventEmitter();
    const logger = recordingLogger();
    ignoreProcessWarnings((warning) => warning.message === 'known and harmless (process-warnings.spec)');
    logProcessWarnings(logger, target);
    target.emit('warning', new Error('known and harmless (process-warnings.spec)'));
    target.emit('warning', new Error('something else'));
    expect(logger.lines.map(({ message }) => message)).toEqual(['Error: something else']);
  });
});

describe('printProcessWarningsFiltered', () => {
  it("prints Node's line for a warning no filter matches, and nothing for one a filter matches", () => {
    const target = new EventEmitter();
    const written = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      ignoreProcessWarnings((warning) => warning.message === 'dropped (printProcessWarningsFiltered spec)');
      printProcessWarningsFiltered(target);
      target.emit('warning', new Error('dropped (printProcessWarningsFiltered spec)'));
      target.emit('warning', Object.assign(new Error('-5 is a negative number.'), { name: 'TimeoutNegativeWarning' }));
      expect(written.mock.calls.map(([line]) => line)).toEqual([`(node:${process.pid}) TimeoutNegativeWarning: -5 is a negative number.\n`]);
    } finally {
      written.mockRestore();
    }
  });
});
