/** The batch encoder's refusal (the batcher's input cannot become a batch); decoding refusals are DroppedInputError. */
import { CriticalDeriveError } from "../errors.js";

/** A block or transaction handed to the encoder that no valid batch can carry. */
export class BatchEncodeError extends CriticalDeriveError {
  readonly field: string;

  constructor(field: string, message: string, details?: Record<string, unknown>) {
    super("batches", `cannot encode batch: ${field}: ${message}`, { field, ...details });
    this.field = field;
  }
}
