import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsIn, IsInt, IsObject, IsOptional, IsString, Length, Min } from 'class-validator';

const MODES = ['merge', 'replace'] as const;
const MODE_DOC = '`merge` refuses aspects that exist (409); `replace` overwrites them';

export class ProjectImportDto {
  @ApiProperty({
    example: '/srv/worlds/demo',
    description: 'A NovelRAG project directory on the gateway host (`aspect.yml` plus the files it names)',
  })
  @IsString()
  @Length(1, 4096)
  path!: string;

  @ApiPropertyOptional({ enum: MODES, default: 'merge', description: MODE_DOC })
  @IsOptional()
  @IsIn(MODES)
  mode?: (typeof MODES)[number];
}

export class ProjectImportBatchDto {
  @ApiProperty({ description: 'The aspect (name, path, description, childrenKeys, metadata)' })
  @IsObject()
  aspect!: Record<string, unknown>;

  @ApiProperty({ description: 'Root elements of the aspect, children inline', type: [Object] })
  @IsArray()
  elements!: unknown[];

  @ApiProperty({
    minimum: 0,
    description: 'Index of the first element in the aspect: 0 creates the aspect, later batches append',
  })
  @IsInt()
  @Min(0)
  start!: number;

  @ApiPropertyOptional({ enum: MODES, default: 'merge', description: MODE_DOC })
  @IsOptional()
  @IsIn(MODES)
  mode?: (typeof MODES)[number];
}
