import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsInt, IsObject, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';

export class SearchResourcesDto {
  @ApiProperty({ example: '余归', maxLength: 2000 })
  @IsString()
  @Length(1, 2000)
  query!: string;

  @ApiPropertyOptional({ example: 'character' })
  @IsOptional()
  @IsString()
  @Length(1, 128)
  aspect?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 5 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;
}

export class BacklogAddDto {
  @ApiProperty({ example: { task: 'Give 余归 a backstory', uri: '/character/yugui' } })
  @IsObject()
  content!: Record<string, unknown>;

  @ApiPropertyOptional({ minimum: 0, maximum: 10, default: 5 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(10)
  priority?: number;
}

export class LimitQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;
}

export class ResourceUriQueryDto {
  @ApiProperty({
    example: '/character/yugui',
    description: 'Resource URI: /, /{aspect}, /{aspect}/{id}, deeper',
  })
  @IsString()
  @Length(1, 1024)
  @Matches(/^\//, { message: 'uri must start with /' })
  uri!: string;
}

export class InteractionAnswerDto {
  @ApiPropertyOptional({ description: 'Answer to a confirmation (or false to decline a request)' })
  @IsOptional()
  @IsBoolean()
  approved?: boolean;

  @ApiPropertyOptional({ description: 'Answer to a request for input', maxLength: 20000 })
  @IsOptional()
  @IsString()
  @Length(1, 20_000)
  text?: string;
}
