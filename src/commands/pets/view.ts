import type { View } from '../../output/print.js';
import type { Tone } from '../../output/table.js';
import type { Pet } from '../../pets/pet.js';

const STATUS_TONE: Record<string, Tone> = { available: 'green', pending: 'yellow', sold: 'gray' };

export const petView: View<Pet> = {
  columns: [
    { header: 'id', text: (p) => p.id.toString(), truncate: 'never' },
    { header: 'name', text: (p) => p.name, truncate: 'first' },
    { header: 'categoryId', text: (p) => p.categoryId.toString(), truncate: 'never' },
    { header: 'status', text: (p) => p.status ?? '', tone: (p) => (p.status ? STATUS_TONE[p.status] : undefined) },
  ],
  json: (p) => p,
};
